import { applyDecorators, type Type } from '@nestjs/common';
import { ApiExtraModels, ApiOkResponse, getSchemaPath } from '@nestjs/swagger';

/** Documents a paginated list answer `{data, has_more, next_cursor}` of `item`. */
export const ApiPage = (item: Type<unknown>) =>
  applyDecorators(
    ApiExtraModels(item),
    ApiOkResponse({
      schema: {
        type: 'object',
        required: ['data', 'has_more', 'next_cursor'],
        properties: {
          data: { type: 'array', items: { $ref: getSchemaPath(item) } },
          has_more: { type: 'boolean', example: false },
          next_cursor: { type: 'string', nullable: true, description: 'Pass as starting_after for the next page.', example: null },
        },
      },
    }),
  );
