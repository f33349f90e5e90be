/**
 * Names that look like credentials, which a session home links and never copies: the
 * descriptor schema refuses a `home.copy` entry with one, and copying a folder skips its
 * files with one. A segment of the path (case-insensitive) looks like a credential when it
 * contains `auth` (so `oauth`), `token`, `credential`, `secret`, `passw` (`password`,
 * `passwd`), `cookie`, `session` or `apikey`; has `key` or `keys` as a whole word
 * (`api_key.txt`, `server.key`, `ssh-keys`; not `keybindings.json`); is an env file (`.env`,
 * `.env.local`, `prod.env`); ends in `.pem`, `.p12`, `.pfx`, `.jks` or `.keystore`; is an SSH
 * identity (`id_rsa`, `id_ed25519`, ...); or is `.netrc`, `.npmrc`, `.pypirc` or `.pgpass`.
 */

const WORDS = ['auth', 'token', 'credential', 'secret', 'passw', 'cookie', 'session', 'apikey'];

const SHAPES = [
  /(^|[^a-z0-9])keys?($|[^a-z0-9])/,
  /^\.env($|\.)|\.env$/,
  /\.(pem|p12|pfx|jks|keystore)$/,
  /^id_(rsa|dsa|ecdsa|ed25519)/,
  /^\.(netrc|npmrc|pypirc|pgpass)$/,
];

/**
 * The first segment of `path` (a relative path, `/`-separated) that looks like a
 * credential, or undefined when none does.
 * @example credentialSegment('profiles/oauth_creds.json') // 'oauth_creds.json'
 */
export function credentialSegment(path: string): string | undefined {
  return path.split(/[\\/]/).find((segment) => {
    const name = segment.toLowerCase();
    return WORDS.some((word) => name.includes(word)) || SHAPES.some((shape) => shape.test(name));
  });
}
