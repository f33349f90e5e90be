/**
 * `node read-secret-cli.js <home> <key>`: the reader a connector's CLI shim runs when the
 * home keeps its secrets in the OS keychain. It prints `key`'s credential to stdout (no
 * newline) and exits 0; when there is none (cleared, uninstalled) or the keychain fails,
 * it prints the shim's no-credential message (or the failure, never a value) to stderr
 * and exits 78. It opens no store and writes nothing. It runs on every CLI call, so it
 * loads little: the record parser only for a secret the migration left in its file.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { noCredentialMessage, SHIM_NO_CREDENTIAL_EXIT } from '../shims/shim-script.js';
import { keychainItems } from './keychain-items.js';

async function secretOf(home: string, key: string): Promise<string | undefined> {
  const dir = join(home, 'credentials');
  // No record, no credential: an item without one is a set cut short, never acknowledged.
  if (!existsSync(join(dir, `${key}.json`))) return undefined;
  const value = await (await keychainItems(home)).get(key, 'secret');
  if (value !== undefined) return value;
  const { readCredential } = await import('../store/credential-file.js');
  return (await readCredential(dir, key))?.secret.reveal();
}

async function main(argv: readonly string[]): Promise<number> {
  const [home, key] = argv;
  if (!home || !key || argv.length !== 2) {
    process.stderr.write('usage: read-secret-cli <home> <key>\n');
    return 64;
  }
  try {
    const secret = await secretOf(home, key);
    if (secret) {
      process.stdout.write(secret);
      return 0;
    }
    process.stderr.write(`${noCredentialMessage(key)}\n`);
  } catch (error) {
    const message = error instanceof TuttiError ? error.message : 'the OS keychain failed';
    process.stderr.write(`tutti-connector-${key}: ${message}\n`);
  }
  return SHIM_NO_CREDENTIAL_EXIT;
}

process.exitCode = await main(process.argv.slice(2));
