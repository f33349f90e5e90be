/**
 * `npm run try-turn`, as docs/running-the-daemon.md tells a newcomer to run it: one real
 * Codex turn through a real `tuttid` on a temp home calls the demo `notes_add_note` tool,
 * offline (the scripted model on 127.0.0.1), prints its events, exits 0, and leaves no
 * process and no folder behind.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { isProcessRunning } from '@tutti/core/internal';
import { runCommand } from '@tutti/test-kit/tuttid';

function runTryTurn() {
  return runCommand('npm', ['run', '-s', 'try-turn']);
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
