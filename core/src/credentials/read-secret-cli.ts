/**
 * `node read-secret-cli.js <home> <key>`: the reader a connector's CLI shim runs when the
 * home keeps its secrets in the OS keychain. It prints `key`'s credential to stdout (no
 * newline) and exits 0; when there is none (cleared, uninstalled) or the keychain fails,
 * it prints the shim's no-credential message (or the failure, never a value) to stderr
 * and exits 78. It opens no store and writes nothing: the daemon keeps running.
 */
import { TuttiError } from '../errors/index.js';
import { noCredentialMessage, SHIM_NO_CREDENTIAL_EXIT } from '../shims/shim-script.js';
import { createKeychainVault } from './keychain-vault.js';

async function main(argv: readonly string[]): Promise<number> {
  const [home, key] = argv;
  if (!home || !key || argv.length !== 2) {
    process.stderr.write('usage: read-secret-cli <home> <key>\n');
    return 64;
  }
  const prefix = `tutti-connector-${key}`;
  try {
    const vault = await createKeychainVault(home, `${home}/credentials`, {
      node: process.execPath,
      script: '',
    });
    const secret = await vault.get(key, 'secret');
    if (secret) {
      process.stdout.write(secret.reveal());
      return 0;
    }
    process.stderr.write(`${noCredentialMessage(key)}\n`);
  } catch (error) {
    const message = error instanceof TuttiError ? error.message : 'the OS keychain failed';
    process.stderr.write(`${prefix}: ${message}\n`);
  }
  return SHIM_NO_CREDENTIAL_EXIT;
}

process.exitCode = await main(process.argv.slice(2));
