import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ERROR_CODES, INTERFACE_ADVICE } from '@tutti/core/client';
import { afterEach, describe, expect, it } from 'vitest';
import { TUTTID_USAGE } from '../tuttid-args.js';
import { OPERATOR_USAGE, runOperatorCommand } from './index.js';

const temps: string[] = [];
afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

async function run(argv: string[], env: NodeJS.ProcessEnv = {}) {
  let stdout = '';
  let stderr = '';
  const code = await runOperatorCommand(argv, {
    env,
    stdout: (text) => {
      stdout += text;
    },
    stderr: (text) => {
      stderr += text;
    },
  });
  return { code, stdout, stderr };
}

describe('the operator commands of tuttid', () => {
  it('leaves anything that is not an operator command to the daemon', async () => {
    expect(await run([])).toEqual({ code: undefined, stdout: '', stderr: '' });
    expect(await run(['--json'])).toEqual({ code: undefined, stdout: '', stderr: '' });
    expect(await run(['--home', 'status'])).toEqual({ code: undefined, stdout: '', stderr: '' });
  });

  it.each(Object.keys(OPERATOR_USAGE))('prints the usage of %s with --help', async (command) => {
    const { code, stdout } = await run([command, '--help']);
    expect(code).toBe(0);
    expect(stdout).toContain(`Usage: tuttid ${command} [--home DIR] [--json]`);
    expect(TUTTID_USAGE).toContain(`tuttid ${command} [--home DIR] [--json]`);
  });

  it('refuses an unknown option with the usage, exit 2', async () => {
    const { code, stderr } = await run(['status', '--verbose']);
    expect(code).toBe(2);
    expect(stderr).toContain("Unknown option '--verbose'");
    expect(stderr).toContain('Usage: tuttid status');
  });

  it('says in one line that no daemon runs for the home (from TUTTI_HOME) and how to start one', async () => {
    const home = await mkdtemp(join(tmpdir(), 'tutti-operator-'));
    temps.push(home);
    for (const command of Object.keys(OPERATOR_USAGE)) {
      const { code, stdout, stderr } = await run([command], { TUTTI_HOME: home });
      expect(code).toBe(1);
      expect(stdout).toBe('');
      expect(stderr.trimEnd().split('\n')).toHaveLength(1);
      expect(stderr).toContain(`tuttid ${command}: No tutti daemon is running`);
      expect(stderr).toContain('start one with `npm start` or `tuttid`');
      expect(stderr).toContain(`home: ${home}`);
      const json = await run([command, '--json', '--home', home]);
      expect(JSON.parse(json.stdout)).toEqual({
        error: {
          code: 'TUTTI_ERR_CLI_DAEMON_NOT_RUNNING',
          message: ERROR_CODES.TUTTI_ERR_CLI_DAEMON_NOT_RUNNING.message,
        },
      });
    }
  });

  it('is every `tuttid <command>` an error or an advice text tells a person to run', () => {
    const texts = [
      ...Object.values(ERROR_CODES).map((spec) => spec.message),
      ...Object.values(INTERFACE_ADVICE),
    ];
    const named = texts.flatMap((text) =>
      [...text.matchAll(/`tuttid ([a-z]+)/g)].map((m) => m[1]!),
    );
    expect(named.length).toBeGreaterThan(0);
    for (const command of named) expect(Object.keys(OPERATOR_USAGE)).toContain(command);
  });
});
