/** Base error of the host: a stable `code` callers branch on, and a cause. */
export class HostError extends Error {
  override readonly name: string = 'HostError';
  constructor(
    readonly code: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}
