/**
 * `npm run try-turn`, as docs/running-the-daemon.md tells a newcomer to run it: one real
 * Codex turn through a real `tuttid` on a temp home calls the demo `notes_add_note` tool,
 * offline (the scripted model on 127.0.0.1), prints its events, exits 0, and leaves no
 * process and no folder behind.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { isProcessRunning } from '@tutti/core/internal';

const ROOT = fileURLToPath(new URL('../', import.meta.url));

function runTryTurn(): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn('npm', ['run', '-s', 'try-turn'], {
    cwd: ROOT,
    env: { ...process.env, TUTTI_HOME: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('npm run try-turn', () => {
  it('runs a Codex turn that calls notes_add_note offline, prints its events and cleans up', async () => {
    const readme = await readFile(
      new URL('../docs/running-the-daemon.md', import.meta.url),
      'utf8',
    );
    expect(readme).toContain('npm run try-turn');

    const { code, stdout, stderr } = await runTryTurn();
    expect(code, `${stdout}\n${stderr}`).toBe(0);
    const pid = Number(/tuttid \(pid (\d+)\) runs on the temp home/.exec(stdout)?.[1]);
    const root = /cleaned up: .*, (\/\S+) removed/.exec(stdout)?.[1];
    expect(pid).toBeGreaterThan(0);
    expect(root).toMatch(/tutti-try-turn-/);
    expect(stdout).toContain('connectors: hello ready, notes ready');
    expect(stdout).toMatch(
      /^ {2}tool_call\s+.*"server":"connector","tool":"notes_add_note","status":"completed"/m,
    );
    expect(stdout).toMatch(/^ {2}tool_result\s+.*"isError":false/m);
    expect(stdout).toMatch(/^ {2}end\s+\{"stopReason":"end_turn"\}$/m);
    expect(stdout).toContain('the agent called notes_add_note on the connector server');
    // Nothing it started is left: the daemon (it took its agent and connectors with it), the folders.
    expect(isProcessRunning(pid)).toBe(false);
    expect(existsSync(root!)).toBe(false);
  }, 240_000);
});
