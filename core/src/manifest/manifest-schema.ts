/**
 * The zod schema of `tutti-connector.json`, the manifest at the root of every connector
 * release. `docs/connector-manifest.schema.json` is generated from it (a test keeps the
 * published file equal to {@link manifestJsonSchema}).
 */
import { z } from 'zod';
import { sandboxSchema } from './sandbox-schema.js';

/** File name of the manifest at the root of a connector release. */
export const MANIFEST_FILE = 'tutti-connector.json';

/** Default folder, inside the release, that holds `<skill>/SKILL.md`. */
export const DEFAULT_SKILLS_DIR = 'skills';

/** A connector key: 1-32 of `[a-z0-9-]`, starting with a letter or digit, never `_`. */
export const CONNECTOR_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;

/** MCP protocol revisions a remote endpoint may be pinned to. */
export const MCP_PROTOCOLS = ['2025-06-18', '2026-07-28'] as const;

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** RFC 6749 scope-token: %x21 / %x23-5B / %x5D-7E. */
const SCOPE_TOKEN = /^[\x21\x23-\x5b\x5d-\x7e]+$/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const VERSION = /^\d+\.\d+\.\d+(?:[-+][0-9A-Za-z.+-]+)?$/;
const LOOPBACK_HOSTS = new Set(['127.0.0.1', 'localhost', '[::1]']);

function isHttpsOrLoopback(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || LOOPBACK_HOSTS.has(url.hostname);
  } catch {
    return true; // not a URL at all: the url check reports that
  }
}

/** A command or argument; `./`-relative values must stay inside the release. */
const releasePath = (what: string) =>
  z
    .string()
    .min(1)
    .refine((value) => !value.startsWith('./') || staysInside(value.slice(2)), {
      message: `a "./" path must stay inside the release (no ".." that leaves it)`,
    })
    .describe(what);

/**
 * A command: a bare PATH name, an absolute path, or a path inside the release (`./x` or
 * `bin/x`, both resolved against the release, never against a working folder).
 */
const command = (what: string) =>
  releasePath(what)
    .refine((value) => !value.startsWith('../'), {
      message: 'a command may not point outside the release with "../"',
    })
    .refine(
      (value) => /^\.\.?\//.test(value) || !isRelativePathCommand(value) || staysInside(value),
      {
        message: 'a relative command is inside the release and may not leave it with ".."',
      },
    );

function isRelativePathCommand(value: string): boolean {
  return !/^(?:[\\/]|[A-Za-z]:[\\/])/.test(value) && /[\\/]/.test(value);
}

function staysInside(relative: string): boolean {
  let depth = 0;
  for (const part of relative.split(/[\\/]/)) {
    if (part === '..') depth -= 1;
    else if (part !== '.' && part !== '') depth += 1;
    if (depth < 0) return false;
  }
  return true;
}

/** Start time of an MCP server when its manifest names none (30 s). */
export const DEFAULT_START_TIMEOUT_MS = 30_000;

/** How long an MCP server may take to start: initialize plus its first full tools/list. */
const startTimeoutMs = z
  .number()
  .int()
  .min(100)
  .max(600_000)
  .optional()
  .describe(
    'Longest the server may take to answer initialize and list all its tools, in ms (100-600000); default 30000. A server that takes longer is stopped and retried with backoff.',
  );

/** Whether the server's tool calls run one at a time. */
const serializeCalls = z
  .boolean()
  .optional()
  .describe(
    "Run the server's tool calls one at a time, in arrival order; default false. For a stdio server that asks the person (elicitation): its question can be routed to its call only while that call is the only one in flight.",
  );

/** A managed stdio MCP server the daemon starts and stops. */
export const stdioMcpSchema = z
  .object({
    command: command(
      'Command that starts the MCP server: a PATH name, an absolute path, or a path inside the release ("./x" or "bin/x").',
    ),
    args: z
      .array(releasePath('An argument; "./x" is relative to the release.'))
      .default([])
      .describe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
        'Arguments of the command; "${TUTTI_CONNECTOR_STATE_DIR}" in one becomes its state folder.',
      ),
    env: z
      .record(
        z
          .string()
          .regex(ENV_NAME, { message: 'an environment variable name is [A-Za-z_][A-Za-z0-9_]*' }),
        z.string(),
      )
      .default({})
      .describe(
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
        'Extra environment of the server process; "${TUTTI_CONNECTOR_STATE_DIR}" in a value becomes its state folder.',
      ),
    startTimeoutMs,
    serializeCalls,
    sandbox: sandboxSchema.optional(),
  })
  .strict()
  .describe('A local MCP server spoken to over stdio.');

/** A remote Streamable HTTP MCP endpoint. */
export const remoteMcpSchema = z
  .object({
    url: z
      .url({ protocol: /^https?$/ })
      .refine(isHttpsOrLoopback, {
        message: 'plain http is allowed only for 127.0.0.1, localhost or [::1]',
      })
      .describe('URL of the Streamable HTTP endpoint (https, or http on loopback).'),
    protocol: z
      .enum(MCP_PROTOCOLS)
      .optional()
      .describe('Pin the MCP protocol revision; negotiated when absent.'),
    startTimeoutMs,
    serializeCalls,
  })
  .strict()
  .describe('A remote MCP server spoken to over Streamable HTTP.');

/** How the connector is authorized; the secret itself lives in the store, never here. */
export const authSchema = z
  .discriminatedUnion('kind', [
    z.object({ kind: z.literal('none') }).strict(),
    z
      .object({
        kind: z.literal('api_key'),
        env: z
          .string()
          .regex(ENV_NAME, { message: 'an environment variable name is [A-Za-z_][A-Za-z0-9_]*' })
          .optional()
          .describe('Variable that carries the key to a stdio server or the CLI.'),
        header: z
          .string()
          .regex(HEADER_NAME, { message: 'a header name is an HTTP token, e.g. "X-Api-Key"' })
          .optional()
          .describe('Header that carries the key to a remote server.'),
        prefix: z
          .string()
          .optional()
          .describe('Text put before the key in the header value, e.g. "Bearer ".'),
      })
      .strict(),
    z
      .object({
        kind: z.literal('oauth2'),
        env: z
          .string()
          .regex(ENV_NAME, { message: 'an environment variable name is [A-Za-z_][A-Za-z0-9_]*' })
          .optional()
          .describe('Variable that carries the bearer token to a stdio server or the CLI.'),
        scopes: z
          .array(
            z.string().regex(SCOPE_TOKEN, {
              message: 'a scope is printable ASCII without spaces, quotes or backslashes',
            }),
          )
          .min(1)
          .max(64)
          .optional()
          .describe(
            "Scopes a sign-in to the remote server asks for when its challenge names none (else the server's own list).",
          ),
        clientId: z
          .string()
          .min(1)
          .max(512)
          .regex(/^[\x21-\x7e]+$/, { message: 'a client id is printable ASCII without spaces' })
          .optional()
          .describe(
            "An OAuth client registered beforehand at the remote server's authorization server; its secret, if any, is set as a credential. Without it tutti registers itself.",
          ),
      })
      .strict(),
  ])
  .describe(
    'Authorization kind; a remote oauth2 server gets "Authorization: Bearer <token>": a token set as its credential, else the one of the sign-in tutti makes.',
  );

/** The object schema of `tutti-connector.json`, before cross-field rules. */
export const manifestObjectSchema = z
  .object({
    $schema: z.string().optional().describe('Editor hint; ignored by tutti.'),
    key: z
      .string()
      .regex(CONNECTOR_KEY_PATTERN, { message: 'must match [a-z0-9][a-z0-9-]{0,31}' })
      .describe('Stable id: 1-32 of [a-z0-9-], starting with a letter or digit.'),
    name: z.string().min(1).max(64).describe('Display name.'),
    description: z.string().min(1).max(1000).describe('What the connector does, in a sentence.'),
    version: z
      .string()
      .regex(VERSION, { message: 'must be a semantic version' })
      .describe('Release version, e.g. "1.2.0".'),
    mcp: z.union([stdioMcpSchema, remoteMcpSchema]).optional(),
    cli: z
      .object({
        command: command(
          'Command that runs the CLI: a PATH name, an absolute path, or a path inside the release ("./x" or "bin/x").',
        ),
        args: z
          .array(releasePath('An argument; "./x" is relative to the release.'))
          .default([])
          .describe("Arguments put before the user's arguments."),
      })
      .strict()
      .optional()
      .describe('A command-line entrypoint, published as tutti-connector-<key>.'),
    skills: z
      .string()
      .min(1)
      .refine((value) => !value.startsWith('/') && staysInside(value), {
        message: 'must be a folder inside the release',
      })
      .optional()
      .describe('Folder inside the release holding <skill>/SKILL.md; default "skills".'),
    auth: authSchema.default({ kind: 'none' }),
  })
  .strict()
  .describe('A tutti connector release manifest (tutti-connector.json).');

/** The full manifest schema: the object schema plus its cross-field rules. */
export const manifestSchema = manifestObjectSchema.superRefine((manifest, ctx) => {
  if (!manifest.mcp && !manifest.cli && manifest.skills === undefined) {
    ctx.addIssue({
      code: 'custom',
      path: [],
      message: 'declares nothing to use',
      params: { fix: 'declare at least one of "mcp", "cli" or "skills"' },
    });
  }
  const auth = manifest.auth;
  if (auth.kind === 'none') return;
  const stdio = manifest.mcp !== undefined && 'command' in manifest.mcp;
  const remote = manifest.mcp !== undefined && 'url' in manifest.mcp;
  if ((stdio || manifest.cli) && !auth.env) {
    ctx.addIssue({
      code: 'custom',
      path: ['auth', 'env'],
      message: 'required for a stdio MCP server or a CLI',
      params: { fix: 'name the environment variable that carries the credential' },
    });
  }
  if (remote && auth.kind === 'api_key' && !auth.header) {
    ctx.addIssue({
      code: 'custom',
      path: ['auth', 'header'],
      message: 'required for a remote MCP server',
      params: { fix: 'name the HTTP header that carries the key, e.g. "Authorization"' },
    });
  }
});

/** A validated connector manifest. */
export type ConnectorManifest = z.output<typeof manifestSchema>;
/** A managed stdio MCP server declaration. */
export type StdioMcp = z.output<typeof stdioMcpSchema>;
/** A remote Streamable HTTP MCP server declaration. */
export type RemoteMcp = z.output<typeof remoteMcpSchema>;
/** The authorization declaration of a manifest. */
export type ConnectorAuth = z.output<typeof authSchema>;

/** True when `mcp` is a managed stdio server (as opposed to a remote endpoint). */
export function isStdioMcp(mcp: StdioMcp | RemoteMcp): mcp is StdioMcp {
  return 'command' in mcp;
}

/** The JSON Schema published as `docs/connector-manifest.schema.json`. */
export function manifestJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(manifestObjectSchema, { io: 'input' }),
    title: 'tutti-connector.json',
  };
}
