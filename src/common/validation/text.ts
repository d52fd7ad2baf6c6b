import { applyDecorators } from '@nestjs/common';
import { IsString, Length, Matches } from 'class-validator';

/** A non-blank string of at most `max` characters (names, titles, labels, external ids). */
export const IsText = (max = 200) => applyDecorators(IsString(), Length(1, max), Matches(/\S/, { message: '$property must not be blank' }));
