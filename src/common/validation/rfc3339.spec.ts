import { describe, expect, it } from '@jest/globals';
import { validate } from 'class-validator';
import fc from 'fast-check';
import { IsRfc3339, parseInstantOrDate, parseRfc3339 } from './rfc3339.js';

const iso = (value: unknown) => parseRfc3339(value)?.toISOString() ?? null;

describe('parseRfc3339', () => {
  it.each([
    ['2026-11-21T10:00:00Z', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00.000Z', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00.5Z', '2026-11-21T10:00:00.500Z'],
    ['2026-11-21T10:00:00.123Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T10:00:00.123456Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T10:00:00.123456789Z', '2026-11-21T10:00:00.123Z'],
    ['2026-11-21T12:00:00+02:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T05:30:00-04:30', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00+00:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-21T10:00:00-00:00', '2026-11-21T10:00:00.000Z'],
    ['2026-11-22T09:00:00.250+23:00', '2026-11-21T10:00:00.250Z'],
    ['2026-01-01T00:30:00+01:00', '2025-12-31T23:30:00.000Z'],
  ])('accepts %s as %s', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it('accepts lower-case t and z separators', () => {
    expect(iso('2026-11-21t10:00:00z')).toBe('2026-11-21T10:00:00.000Z');
    expect(iso('2026-11-21t10:00:00.5+01:00')).toBe('2026-11-21T09:00:00.500Z');
  });

  it.each([
    ['2024-02-29T00:00:00Z', '2024-02-29T00:00:00.000Z'],
    ['2000-02-29T00:00:00Z', '2000-02-29T00:00:00.000Z'],
    ['2026-12-31T23:59:59.999Z', '2026-12-31T23:59:59.999Z'],
    ['2026-04-30T00:00:00Z', '2026-04-30T00:00:00.000Z'],
  ])('accepts the real edge of the calendar %s', (input, expected) => {
    expect(iso(input)).toBe(expected);
  });

  it.each([
    '2026-11-21T10:00:00', // no zone
    '2026-11-21T10:00:00.000', // no zone, with fraction
    '2026-11-21', // a date only
    '10:00:00Z', // a time only
    '2026-11-21 10:00:00', // space and no zone
    '2026-11-21T10:00Z', // no seconds
    '2026-11-21T10:00:00+0200', // offset without colon
    '2026-11-21T10:00:00+02', // offset without minutes
    '2026-11-21T10:00:00 Z',
    '2026-11-21T10:00:00.Z', // an empty fraction
    '2026-11-21T10:00:00.1234567890Z', // ten fraction digits
    '26-11-21T10:00:00Z',
    '+002026-11-21T10:00:00Z',
    '2026-1-21T10:00:00Z',
    ' 2026-11-21T10:00:00Z',
    '2026-11-21T10:00:00Z ',
    '2026-11-21T10:00:00Z\n',
    '2026-11-21T10:00:00UTC',
    '2026-11-21T10:00:00GMT+2',
    'Sat, 21 Nov 2026 10:00:00 GMT',
    '1795312773000',
    'now',
    '',
  ])('refuses %j', (input) => {
    expect(parseRfc3339(input)).toBeNull();
  });

  it.each([
    '2026-02-30T00:00:00Z',
    '2026-02-29T00:00:00Z', // 2026 is not a leap year
    '1900-02-29T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-11-00T00:00:00Z',
    '2026-11-32T00:00:00Z',
    '2026-11-21T24:00:00Z',
    '2026-11-21T10:60:00Z',
    '2026-11-21T10:00:60Z', // leap seconds are refused rather than guessed
    '2026-11-21T10:00:00+24:00',
    '2026-11-21T10:00:00+01:60',
  ])('refuses the impossible date or time %s', (input) => {
    expect(parseRfc3339(input)).toBeNull();
  });

  it.each([
    ['a number', 1795312773000],
    ['null', null],
    ['undefined', undefined],
    ['a Date', new Date('2026-11-21T10:00:00Z')],
    ['an array', ['2026-11-21T10:00:00Z']],
    ['an object', { toString: () => '2026-11-21T10:00:00Z' }],
    ['a boolean', true],
  ])('refuses %s', (_, value) => {
    expect(parseRfc3339(value)).toBeNull();
  });

  it('reads the years 1 to 99 as themselves, and refuses year 0, which PostgreSQL does not have', () => {
    expect(iso('0001-01-01T00:00:00Z')).toBe('0001-01-01T00:00:00.000Z');
    expect(iso('0004-02-29T12:00:00Z')).toBe('0004-02-29T12:00:00.000Z'); // a leap year, as 1904 is
    expect(iso('0100-02-29T00:00:00Z')).toBeNull(); // not one
    expect(iso('0000-06-01T00:00:00Z')).toBeNull();
    expect(iso('0000-12-31T23:30:00-01:00')).toBeNull();
    expect(iso('0001-01-01T00:30:00+01:00')).toBeNull(); // the instant lies in year 0
  });

  it('reads back every instant it formats, whatever the offset', () => {
    fc.assert(
      fc.property(
        fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }),
        fc.integer({ min: -23 * 60 - 59, max: 23 * 60 + 59 }),
        (date, offsetMinutes) => {
          expect(iso(date.toISOString())).toBe(date.toISOString());
          const local = new Date(date.getTime() + offsetMinutes * 60_000).toISOString().slice(0, 23);
          const sign = offsetMinutes < 0 ? '-' : '+';
          const abs = Math.abs(offsetMinutes);
          const offset = `${sign}${String(Math.floor(abs / 60)).padStart(2, '0')}:${String(abs % 60).padStart(2, '0')}`;
          expect(iso(`${local}${offset}`)).toBe(date.toISOString());
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('@IsRfc3339', () => {
  class Body {
    @IsRfc3339()
    at: unknown;
  }

  const check = async (at: unknown) => {
    const body = new Body();
    body.at = at;
    return validate(body);
  };

  it('passes an RFC 3339 timestamp with a zone', async () => {
    expect(await check('2026-11-21T10:00:00.000Z')).toEqual([]);
  });

  it('fails a timestamp without a zone, with a message that names the field', async () => {
    const errors = await check('2026-11-21T10:00:00');
    expect(errors).toHaveLength(1);
    expect(errors[0].property).toBe('at');
    expect(Object.values(errors[0].constraints ?? {})).toEqual(['at must be an RFC 3339 timestamp with a time zone']);
  });

  it('fails an impossible date and a non-string', async () => {
    expect(await check('2026-02-30T00:00:00Z')).toHaveLength(1);
    expect(await check(0)).toHaveLength(1);
  });
});

describe('parseInstantOrDate', () => {
  it('reads a full date as that day at 00:00 UTC, and a timestamp as parseRfc3339 does', () => {
    expect(parseInstantOrDate('2026-11-01')?.toISOString()).toBe('2026-11-01T00:00:00.000Z');
    expect(parseInstantOrDate('2024-02-29')?.toISOString()).toBe('2024-02-29T00:00:00.000Z');
    expect(parseInstantOrDate('2026-11-01T12:00:00+02:00')?.toISOString()).toBe('2026-11-01T10:00:00.000Z');
  });

  it('reads a date of the years 1 to 99 as itself, and refuses year 0', () => {
    expect(parseInstantOrDate('0050-03-01')?.toISOString()).toBe('0050-03-01T00:00:00.000Z');
    expect(parseInstantOrDate('0000-01-01')).toBeNull();
    expect(parseInstantOrDate('0000-06-01T00:00:00Z')).toBeNull();
  });

  it.each(['2026-02-29', '2026-13-01', '2026-11-00', '2026-11-1', '20261101', '2026-11-01T00:00:00', ' 2026-11-01', 20261101, null])(
    'refuses %j',
    (value) => {
      expect(parseInstantOrDate(value)).toBeNull();
    },
  );
});
