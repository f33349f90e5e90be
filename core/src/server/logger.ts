/** The server's pino logger, with every place a token could sit redacted. */
import { type Logger, pino } from 'pino';

/** Paths censored in every log line of the server. */
export const REDACTED_PATHS: readonly string[] = [
  'req.headers.authorization',
  'request.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
];

/** A child of `base` (or a silent logger) that redacts authorization headers and tokens. */
export function createServerLogger(base?: Logger): Logger {
  const redact = { paths: [...REDACTED_PATHS], censor: '[redacted]' };
  return base
    ? base.child({ component: 'connector-server' }, { redact })
    : pino({ level: 'silent', redact });
}
