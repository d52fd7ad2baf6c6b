import { registerDecorator, type ValidationOptions } from 'class-validator';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/**
 * Midnight UTC of a calendar date, or `null` when the date does not exist. Years 1 to 9999: PostgreSQL has no year 0
 * (RFC 3339's 0000 is 1 BC), and `Date.UTC` would read years 0 to 99 as 1900 to 1999.
 */
function utcDate(year: number, month: number, day: number): Date | null {
  if (year < 1) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  return date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day ? date : null;
}

/** Parses an RFC 3339 timestamp (a time zone is required); `null` for anything else, including impossible dates. */
export function parseRfc3339(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  if (utcDate(year, month, day) === null) return null;
  const time = Date.parse(value.toUpperCase());
  // an offset may carry the instant past the years PostgreSQL and this parser share (0001-01-01T00:30+01:00)
  return Number.isNaN(time) || new Date(time).getUTCFullYear() < 1 ? null : new Date(time);
}

/**
 * True when an RFC 3339 timestamp carries a non-zero digit past the millisecond, which the database's timestamps
 * (microseconds) would keep and JavaScript's (milliseconds) would not: refused rather than silently cut.
 */
export function finerThanMilliseconds(value: string): boolean {
  return /[1-9]/.test(/\.(\d+)/.exec(value)?.[1].slice(3) ?? '');
}

const FULL_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/**
 * Parses an instant: an RFC 3339 timestamp, or a full date (`2026-11-01`), read as that day's midnight in UTC, for
 * ranges counted in UTC days. `null` for anything else, including impossible dates.
 */
export function parseInstantOrDate(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = FULL_DATE.exec(value);
  if (!match) return parseRfc3339(value);
  const [year, month, day] = match.slice(1).map(Number);
  return utcDate(year, month, day);
}

/** The timestamp its sender meant, `%2B` in place of the space, when a space stands where a `+` offset belongs. */
function plusSentAsSpace(value: string): string | null {
  const restored = value.replace(/ (\d{2}:\d{2})$/, '+$1');
  return restored !== value && parseRfc3339(restored) !== null ? restored.replace('+', '%2B') : null;
}

export function IsInstantOrDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isInstantOrDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: ({ value }) => {
          const rule = `${String(propertyName)} must be an RFC 3339 timestamp with a time zone, or a date (YYYY-MM-DD, midnight UTC)`;
          const sent = typeof value === 'string' ? plusSentAsSpace(value) : null;
          // A query string decodes an unencoded `+` to a space, so a positive offset typed into a URL arrives broken.
          return sent === null ? rule : `${rule}; its + arrived as a space: in a URL, send + as %2B (${sent})`;
        },
        ...options,
      },
      validator: { validate: (value: unknown) => parseInstantOrDate(value) !== null },
    });
}

export function IsRfc3339(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isRfc3339',
      target: target.constructor,
      propertyName: propertyName as string,
      options: { message: `${String(propertyName)} must be an RFC 3339 timestamp with a time zone`, ...options },
      validator: { validate: (value: unknown) => parseRfc3339(value) !== null },
    });
}
