/**
 * The `mcp.sandbox` block of a stdio server's manifest: what the server may read and write
 * beyond its own folders, whether it has the network, which of the daemon's environment
 * variables it gets, and its resource limits (docs/sandbox.md). Which folders are never
 * given whatever a manifest says is decided here too, so the manifest check and the
 * sandbox refuse the same paths.
 */
import { z } from 'zod';

/** Network of a sandboxed server: `none` (loopback of its own only) or `host`. */
export const SANDBOX_NETWORKS = ['none', 'host'] as const;

/**
 * Folders and files under the user's home that are never given to a connector server,
 * whatever its manifest declares: keys, cloud and registry credentials, keyrings, browser
 * profiles. A declared path that is one of them or inside one is refused; one that holds
 * one gets it hidden (an empty folder, or an empty file, in its place).
 */
export const PROTECTED_HOME_PATHS: readonly string[] = Object.freeze([
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker',
  '.oci',
  '.config/doctl',
  '.config/gh',
  '.config/hub',
  '.git-credentials',
  '.netrc',
  '.npmrc',
  '.yarnrc',
  '.pypirc',
  '.cargo/credentials',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d',
  '.vault-token',
  '.password-store',
  '.local/share/keyrings',
  '.local/share/kwalletd',
  '.pki',
  '.mozilla',
  '.thunderbird',
  '.config/google-chrome',
  '.config/chromium',
  '.config/BraveSoftware',
  '.config/microsoft-edge',
  '.config/vivaldi',
  '.config/opera',
  '.var/app',
  'snap',
  '.tutti',
  // macOS
  'Library/Keychains',
  'Library/Cookies',
  'Library/Application Support/Google/Chrome',
  'Library/Application Support/Firefox',
  'Library/Safari',
]);

/**
 * True when home-relative `path` (no `~/`) is a protected path or inside one. Repeated,
 * leading and trailing slashes do not matter (`/.ssh` and `.config//gh` are protected).
 */
export function isProtectedHomePath(path: string): boolean {
  const clean = path.replace(/\/{2,}/g, '/').replace(/^\/|\/$/g, '');
  return PROTECTED_HOME_PATHS.some((protectedPath) => {
    return clean === protectedPath || clean.startsWith(`${protectedPath}/`);
  });
}

/** True when a protected path lies strictly inside home-relative `path` (no `~/`). */
export function holdsProtectedHomePath(path: string): boolean {
  const clean = path.replace(/\/{2,}/g, '/').replace(/^\/|\/$/g, '');
  return PROTECTED_HOME_PATHS.some((protectedPath) => protectedPath.startsWith(`${clean}/`));
}

/** A home path: `~/` and a relative path that stays below the home. */
const homePath = z
  .string()
  .max(256)
  .regex(/^~\/[^\0]+$/, { message: 'a path here is under the home: "~/" and a relative path' })
  .refine(
    (value) =>
      value
        .slice(2)
        .split('/')
        .every((part) => part !== '..' && part !== '.'),
    { message: 'a home path may not hold "." or ".." parts' },
  )
  .refine((value) => value.replace(/\/+$/, '') !== '~', {
    message: 'the whole home is never given; name the folders the server needs',
  })
  .refine((value) => !isProtectedHomePath(value.slice(2)), {
    message:
      'this folder holds keys, credentials or browser data and is never given to a connector',
  });

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Limits of one sandboxed server (within the daemon's cap). */
export const sandboxLimitsSchema = z
  .object({
    memoryMiB: z
      .number()
      .int()
      .min(64)
      .max(65_536)
      .optional()
      .describe(
        'Most data memory of each of its processes, in MiB (64-65536); default 2048, at most the daemon cap.',
      ),
    processes: z
      .number()
      .int()
      .min(8)
      .max(4096)
      .optional()
      .describe(
        'Most processes and threads it runs at once (8-4096); default 512, at most the daemon cap.',
      ),
  })
  .strict();

/** The `mcp.sandbox` block of a stdio server. */
export const sandboxSchema = z
  .object({
    filesystem: z
      .object({
        read: z
          .array(homePath)
          .max(32)
          .default([])
          .describe('Paths under the home the server may read ("~/notes").'),
        write: z
          .array(
            homePath.refine((value) => !holdsProtectedHomePath(value.slice(2)), {
              message:
                'this folder holds folders of keys, credentials or browser data, so it is never writable: declare the folder below it the server writes to',
            }),
          )
          .max(32)
          .default([])
          .describe('Paths under the home the server may read and write ("~/Projects/site").'),
      })
      .strict()
      .default({ read: [], write: [] })
      .describe(
        'Paths under the home it may use; its release (read-only), its state folder and its temp folder are always given.',
      ),
    network: z
      .enum(SANDBOX_NETWORKS)
      .default('host')
      .describe('"none": no network but its own loopback; "host": the network (default).'),
    env: z
      .array(
        z
          .string()
          .regex(ENV_NAME, { message: 'an environment variable name is [A-Za-z_][A-Za-z0-9_]*' }),
      )
      .max(64)
      .default([])
      .describe(
        "Variables of the daemon's environment the server gets, besides its manifest env, its credential and the base (PATH, locale, TZ).",
      ),
    limits: sandboxLimitsSchema
      .default({})
      .describe('Memory and process limits (defaults in docs/sandbox.md).'),
  })
  .strict()
  .describe(
    'How the server is isolated (docs/sandbox.md). Without the block it gets the default profile: no home paths, the network, the base environment.',
  );

/** A validated `mcp.sandbox` block. */
export type SandboxDeclaration = z.output<typeof sandboxSchema>;
