/**
 * The values the OpenAPI document shows as examples, shared by the DTOs so that one example payload tells one story:
 * Acme's EU store sells a crew tee in a size M, a shopper gets a recommendation and buys it. Ids look like the
 * service's UUIDv7s; timestamps are RFC 3339 in UTC with milliseconds, as the service writes them.
 */
export const EXAMPLE_ID = {
  merchant: '0199a3b4-2b1a-7c3d-8e4f-5a6b7c8d9e0f',
  apiKey: '0199a3b4-6a1e-7c42-8d3f-2b9e4c7a1d05',
  consoleAccount: '0199a3b5-0f2a-7b61-a4c8-5e3d9f1b2c70',
  store: '0199a3b6-7d28-7a93-b1e4-8c6f0a2d4e19',
  productType: '0199a3b7-1c3e-7f05-9d72-4a8b6e0c3f21',
  sizeChart: '0199a3b7-2e4a-7d18-8b63-9f1c5a7e2d34',
  product: '0199a3b8-4b6c-7e29-a5d1-3c7e9b2f6a48',
  variant: '0199a3b8-5d7e-7a3b-b8e2-6f4a1c9d3b57',
  variantLarge: '0199a3b8-5e80-7b4c-a9f3-7a5b2d0e4c68',
  questionnaire: '0199a3b9-8a1f-7c4d-9e63-2d5b8f0a4c66',
  session: '0199a3ba-3f5b-7d6e-a1c9-7b2e4d8f0a73',
  recommendation: '0199a3ba-4a6c-7e7f-b2da-8c3f5e9a1b84',
  event: '0199a3bb-6c8e-7f9a-83eb-9d4a6f0b2c95',
  experiment: '0199a3bc-1d2e-7a4f-9b6c-3e5d7f9a1b2c',
} as const;

/** Created, updated, decided: one morning of the story. */
export const EXAMPLE_TIME = {
  created: '2026-11-21T09:14:07.512Z',
  updated: '2026-11-21T09:16:42.031Z',
  occurred: '2026-11-21T09:18:03.250Z',
  received: '2026-11-21T09:18:03.874Z',
  expires: '2027-11-21T00:00:00.000Z',
} as const;

/** The Request-Id of an example answer (problem details quote it). */
export const EXAMPLE_REQUEST_ID = '0199a3b4-5c6d-7e8f-9a0b-1c2d3e4f5a6b';

export const EXAMPLE_SECRET_PREFIX = 'sfk_7Hq2';
