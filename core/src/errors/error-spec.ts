/** One row of the error table (`codes.ts`). */
export interface ErrorSpec {
  /** Message template; `{name}` is replaced by `details.name`. */
  readonly message: string;
  /** HTTP status when the error answers an HTTP request. */
  readonly status: number;
}
