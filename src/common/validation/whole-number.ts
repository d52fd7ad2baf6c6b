import { Transform } from 'class-transformer';

/**
 * A query parameter read as a whole number only when it is written as one (`20`, `-1`): `0x10`, `1e1`, ` 5`, an
 * empty value or a repeated parameter stay as sent, and the parameter's integer rule refuses them. `Number()` would
 * read the first two as 16 and 10, and the empty value as 0.
 */
export const WholeNumber = () => Transform(({ value }) => (typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value));
