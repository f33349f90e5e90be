/**
 * Redacts known secrets from text a child process wrote (an agent's or upstream's stderr)
 * before it is shown in an answer or a listing: every registered secret value, every
 * `Bearer <token>`, every `NAME=value` whose name looks like a credential, and the parts of
 * an OAuth exchange that grant access: an authorization `code` or `code_verifier` in a URL
 * query or form, and a token, code or client secret as a JSON field.
 */

const REDACTED = '[redacted]';
/** Values shorter than this are not registered: they would redact ordinary words. */
const MIN_SECRET_LENGTH = 8;
const BEARER = /\b(Bearer\s+)[A-Za-z0-9._~+/=-]{8,}/gi;
const SECRET_ASSIGNMENT =
  /\b([A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH)[A-Za-z0-9_]*\s*[=:]\s*)(?!Bearer\b|\[redacted\])("[^"]*"|'[^']*'|[^\s"',;]+)/gi;

/** `?code=...` / `&code_verifier=...`: an authorization code or PKCE verifier in a URL or form. */
const OAUTH_PARAMETER = /([?&](?:code|code_verifier)=)[^\s&#"']+/g;
/** `"refresh_token": "..."` and the like: what a token endpoint answers or is sent as JSON. */
const OAUTH_JSON_FIELD =
  /("(?:access_token|refresh_token|id_token|client_secret|code|code_verifier)"\s*:\s*)"[^"]*"/g;

/** True when an environment variable's name says it holds a secret. */
export function looksSecretName(name: string): boolean {
  return /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH/i.test(name);
}

/** A set of known secrets and the redaction of text against them. */
export interface SecretRedactor {
  /** Registers secrets (reference-counted); returns the function that forgets them again. */
  add(...secrets: readonly (string | undefined)[]): () => void;
  /** Registers the values of `env` whose names look like credentials. */
  addEnv(env: Readonly<Record<string, string>>): () => void;
  /** `text` with every known secret and every bearer token or credential assignment masked. */
  redact(text: string): string;
}

/**
 * An empty redactor; one per daemon, shared by everything that shows a child's output.
 * @example const redactor = createSecretRedactor(); const forget = redactor.add(token);
 */
export function createSecretRedactor(): SecretRedactor {
  const counts = new Map<string, number>();
  const add = (...secrets: readonly (string | undefined)[]): (() => void) => {
    const added = secrets.filter(
      (secret): secret is string => secret !== undefined && secret.length >= MIN_SECRET_LENGTH,
    );
    for (const secret of added) counts.set(secret, (counts.get(secret) ?? 0) + 1);
    let done = false;
    return () => {
      if (done) return;
      done = true;
      for (const secret of added) {
        const left = (counts.get(secret) ?? 1) - 1;
        if (left <= 0) counts.delete(secret);
        else counts.set(secret, left);
      }
    };
  };
  return {
    add,
    addEnv: (env) =>
      add(
        ...Object.entries(env)
          .filter(([name]) => looksSecretName(name))
          .map(([, value]) => value),
      ),
    redact(text) {
      let result = text;
      // Longest first, so a secret containing another is masked whole.
      for (const secret of [...counts.keys()].sort((a, b) => b.length - a.length)) {
        if (result.includes(secret)) result = result.split(secret).join(REDACTED);
      }
      return result
        .replace(BEARER, `$1${REDACTED}`)
        .replace(OAUTH_PARAMETER, `$1${REDACTED}`)
        .replace(OAUTH_JSON_FIELD, `$1"${REDACTED}"`)
        .replace(SECRET_ASSIGNMENT, (_whole, prefix: string) => `${prefix}${REDACTED}`);
    },
  };
}

/** ANSI escape sequences (colours, cursor moves). */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the escape character is what it matches
const ANSI_ESCAPE = /\u001b\[[0-9;?]*[ -/]*[@-~]/g;

/**
 * The last `maxLines` non-empty lines of `text`, without terminal escapes, each cut to
 * `maxLineLength` characters.
 */
export function lastLines(text: string, maxLines = 20, maxLineLength = 500): string[] {
  return (
    text
      .split(/\r?\n/)
      // Terminal colours and cursor moves are noise in a message.
      .map((line) => line.replace(ANSI_ESCAPE, '').trimEnd())
      .filter((line) => line.length > 0)
      .slice(-maxLines)
      .map((line) => (line.length > maxLineLength ? `${line.slice(0, maxLineLength)}…` : line))
  );
}
