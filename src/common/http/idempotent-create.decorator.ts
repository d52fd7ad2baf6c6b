import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiExtension } from '@nestjs/swagger';

export const IDEMPOTENT_CREATE = 'size-fit:idempotent-create';
/** The extension through which the OpenAPI document learns of the header (common/openapi/openapi.ts). */
export const IDEMPOTENT_EXTENSION = 'x-idempotent' as const;

/**
 * A `POST` that creates: it honours an `Idempotency-Key` header (`auth/idempotent-creates.interceptor.ts`), so a client may retry it after a
 * timeout and get the first answer instead of a second resource.
 */
export const IdempotentCreate = () => applyDecorators(SetMetadata(IDEMPOTENT_CREATE, true), ApiExtension(IDEMPOTENT_EXTENSION, true));
