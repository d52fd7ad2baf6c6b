import { registerDecorator, type ValidationOptions } from 'class-validator';

const RFC3339 = /^(\d{4})-(\d{2})-(\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?([Zz]|[+-](\d{2}):(\d{2}))$/;

/** Parses an RFC 3339 timestamp (a time zone is required); `null` for anything else, including impossible dates. */
export function parseRfc3339(value: unknown): Date | null {
  if (typeof value !== 'string') return null;
  const match = RFC3339.exec(value);
  if (!match) return null;
  const [, year, month, day, hour, minute, second] = match.map(Number);
  const offsetHours = match[9] === undefined ? 0 : Number(match[9]);
  const offsetMinutes = match[10] === undefined ? 0 : Number(match[10]);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const calendar = new Date(Date.UTC(year, month - 1, day));
  if (calendar.getUTCMonth() !== month - 1 || calendar.getUTCDate() !== day) return null;
  const time = Date.parse(value.toUpperCase());
  return Number.isNaN(time) ? null : new Date(time);
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
  const midnight = new Date(Date.UTC(year, month - 1, day));
  return midnight.getUTCFullYear() === year && midnight.getUTCMonth() === month - 1 && midnight.getUTCDate() === day ? midnight : null;
}

export function IsInstantOrDate(options?: ValidationOptions): PropertyDecorator {
  return (target, propertyName) =>
    registerDecorator({
      name: 'isInstantOrDate',
      target: target.constructor,
      propertyName: propertyName as string,
      options: {
        message: `${String(propertyName)} must be an RFC 3339 timestamp with a time zone, or a date (YYYY-MM-DD, midnight UTC)`,
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
