/** A console failure shown as an error page: a stable code, its status and a sentence for the merchant. */
export class ConsoleError extends Error {
  override readonly name = 'ConsoleError';

  constructor(
    readonly code: string,
    readonly status: number,
    readonly title: string,
    message: string,
  ) {
    super(message);
  }
}
