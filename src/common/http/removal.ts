import type { Response } from 'express';

/** What a delete did: removed the row, or archived it because something still refers to it. */
export type Removal<T> = { removed: true } | { removed: false; archived: T };

/** DELETE answers 204 when the row is gone, 200 with the archived record when something still refers to it. */
export function answerRemoval<T>(response: Response, removal: Removal<T>): T | undefined {
  if (removal.removed) {
    response.status(204);
    return undefined;
  }
  response.status(200);
  return removal.archived;
}
