import { ApiProperty, type ApiPropertyOptions, ApiPropertyOptional } from '@nestjs/swagger';
import { IsBoolean, IsInt, IsOptional, Max, Min } from 'class-validator';
import { IsOmittable } from '../../common/validation/omittable.js';
import { IsText } from '../../common/validation/text.js';
import { WholeNumber } from '../../common/validation/whole-number.js';
import { ValidateWith } from '../../common/validation/validate-with.js';
import type { Question, Questionnaire, QuestionnaireVersion } from '../fit.entities.js';
import { checkQuestions, ENGINE_KEYS } from '../questions.js';
import { EXAMPLE_ID, EXAMPLE_TIME } from '../../common/openapi/examples.js';

const QUESTIONS_DOC: ApiPropertyOptions = {
  type: 'array',
  items: {
    type: 'object',
    properties: { key: { type: 'string', example: 'height' }, required: { type: 'boolean', example: true } },
    required: ['key', 'required'],
  },
  example: [
    { key: 'height', required: true },
    { key: 'weight', required: true },
    { key: 'sex', required: false },
  ],
  description: `1–50 questions. Keys: ${ENGINE_KEYS.join(', ')}, or custom:<name> (stored, not used).`,
};

export class CreateQuestionnaireRequest {
  @ApiProperty({ example: 'Tops quiz', maxLength: 200 })
  @IsText()
  name: string;

  @ApiProperty(QUESTIONS_DOC)
  @ValidateWith(checkQuestions)
  questions: Question[];

  @ApiPropertyOptional({ description: "The store's default for sessions started without a questionnaire.", default: false, example: true })
  @IsOmittable()
  @IsBoolean()
  default?: boolean;
}

export class UpdateQuestionnaireRequest {
  @ApiPropertyOptional({ maxLength: 200, example: 'Tops quiz' })
  @IsOmittable()
  @IsText()
  name?: string;

  @ApiPropertyOptional({ ...QUESTIONS_DOC, description: `${QUESTIONS_DOC.description} Replaces every question.` })
  @IsOmittable()
  @ValidateWith(checkQuestions)
  questions?: Question[];

  @ApiPropertyOptional({ description: 'Make it (or stop it being) the store default. Does not make a new version.', example: true })
  @IsOmittable()
  @IsBoolean()
  default?: boolean;
}

/** Versions are stored as a PostgreSQL `integer`: a larger number would fail in the query rather than not match. */
const MAX_VERSION = 2 ** 31 - 1;
const VERSION_RANGE = `version must be a whole number from 1 to ${MAX_VERSION}`;

export class QuestionnaireVersionQuery {
  @ApiPropertyOptional({
    type: 'integer',
    description: 'An earlier version; the current one when left out.',
    minimum: 1,
    maximum: MAX_VERSION,
    example: 2,
  })
  @IsOptional()
  @WholeNumber()
  @Max(MAX_VERSION, { message: VERSION_RANGE })
  @Min(1, { message: VERSION_RANGE })
  @IsInt({ message: VERSION_RANGE })
  version?: number;
}

export class QuestionnaireResponse {
  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.questionnaire })
  id: string;

  @ApiProperty({ format: 'uuid', example: EXAMPLE_ID.store })
  store_id: string;

  @ApiProperty({ example: 'Tops quiz' })
  name: string;

  @ApiProperty({
    type: 'integer',
    minimum: 1,
    description: 'Starts at 1; every change of name or questions makes a new version.',
    example: 2,
  })
  version: number;

  @ApiProperty(QUESTIONS_DOC)
  questions: Question[];

  @ApiProperty({ description: "Whether it is the store's default.", example: true })
  default: boolean;

  @ApiProperty({ format: 'date-time', nullable: true, type: String, description: 'Set when deleted while in use.', example: null })
  archived_at: string | null;

  @ApiProperty({ format: 'date-time', example: EXAMPLE_TIME.created })
  created_at: string;

  @ApiProperty({ format: 'date-time', description: 'When this version was made.', example: EXAMPLE_TIME.updated })
  updated_at: string;

  static from(this: void, questionnaire: Questionnaire, version?: QuestionnaireVersion): QuestionnaireResponse {
    return {
      id: questionnaire.id,
      store_id: questionnaire.storeId,
      name: version?.name ?? questionnaire.name,
      version: version?.version ?? questionnaire.version,
      questions: version?.questions ?? questionnaire.questions,
      default: questionnaire.isDefault,
      archived_at: questionnaire.archivedAt?.toISOString() ?? null,
      created_at: questionnaire.createdAt.toISOString(),
      updated_at: (version?.createdAt ?? questionnaire.updatedAt).toISOString(),
    };
  }
}
