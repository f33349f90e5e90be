import { readFileSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RevokeReason } from '@tutti/core/internal';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import { closeDaemons, startTestDaemon } from '@tutti/test-kit/reliability/in-process-daemon';

afterEach(async () => {
  await closeDaemons();
  await cleanUp();
});

/** Local addresses (hex, as the kernel writes them) of the TCP sockets listening on `port`. */
function listeningAddresses(port: number): string[] {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const addresses: string[] = [];
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.trim().split('\n').slice(1)) {
      const [, local, , state] = line.trim().split(/\s+/);
      const [address, localPort] = (local ?? '').split(':');
      if (state === '0A' && localPort === hexPort) addresses.push(address!);
    }
  }
  return addresses;
}

const IPV4_LOOPBACK = '0100007F';

describe('daemon promises', () => {
  it('listens on 127.0.0.1 only, for the connector server and the control API', async () => {
    const { daemon } = await startTestDaemon();
    const ports = [new URL(daemon.mcpUrl).port, new URL(daemon.info.controlUrl).port].map(Number);
    expect(new URL(daemon.mcpUrl).hostname).toBe('127.0.0.1');
    expect(new URL(daemon.info.controlUrl).hostname).toBe('127.0.0.1');
    for (const port of ports) {
      expect(listeningAddresses(port)).toEqual([IPV4_LOOPBACK]);
    }
  });

  it('revokes every token when it shuts down, also one no session closed', async () => {
    const test = await startTestDaemon();
    const { daemon } = test;
    const sessionToken = await test.sessionToken('bound-session');
    const stray = daemon.tokens.issue('ws', 'stray-session');
    const reasons = new Map<string, RevokeReason>();
    daemon.tokens.onRevoked((session, reason) => reasons.set(session.agentSessionId, reason));
    expect(daemon.tokens.verify(sessionToken)).toBeDefined();
    expect(daemon.tokens.verify(stray)).toBeDefined();
    await daemon.close();
    expect(daemon.tokens.verify(sessionToken)).toBeUndefined();
    expect(daemon.tokens.verify(stray)).toBeUndefined();
    expect(reasons.get('stray-session')).toBe('revoke-all');
  });
});

describe('install answer', () => {
  it('lists a skill skipped for a missing SKILL.md field, with the reason', async () => {
    const test = await startTestDaemon();
    const release = await writeRelease({
      key: 'skilled',
      skills: {
        good: '---\nname: good\ndescription: A skill that is complete.\n---\n# Good\n',
        bad: '---\nname: bad\n---\n# Bad, no description\n',
      },
    });
    const manifestPath = join(release, 'tutti-connector.json');
    const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
    await writeFile(manifestPath, JSON.stringify({ ...manifest, skills: 'skills' }));
    const { status, body } = await test.control('POST', '/v1/connectors/install', {
      path: release,
    });
    expect(status).toBe(200);
    expect(body.skipped).toEqual([
      {
        path: 'skills/bad/SKILL.md',
        code: 'missing-field',
        reason: expect.stringContaining('description'),
      },
    ]);
    const { body: available } = await test.control('GET', '/v1/connectors/available');
    const skilled = available.connectors.find((c: { key: string }) => c.key === 'skilled');
    expect(skilled.skills.map((s: { name: string }) => s.name)).toEqual(['good']);
  });

  it('lists a skill whose SKILL.md cannot be read as a file, and serves the others', async () => {
    const test = await startTestDaemon();
    const release = await writeRelease({
      key: 'unread',
      cli: 'console.log("ok");\n',
      skills: { good: '---\nname: good\ndescription: A skill that is complete.\n---\n# Good\n' },
    });
    // A folder named SKILL.md: found like a skill, and not a file anyone can read.
    await mkdir(join(release, 'skills', 'broken', 'SKILL.md'), { recursive: true });
    await writeFile(join(release, 'skills', 'broken', 'SKILL.md', 'notes.txt'), 'x');
    const { status, body } = await test.control('POST', '/v1/connectors/install', {
      path: release,
    });
    expect(status).toBe(200);
    expect(body.skipped).toEqual([
      {
        path: 'skills/broken/SKILL.md',
        code: 'unreadable',
        reason: 'skills/broken/SKILL.md cannot be read as a file: skipped.',
      },
    ]);
    expect(body.runtime.state).toBe('ready');
    const { body: available } = await test.control('GET', '/v1/connectors/available');
    expect(available.connectors[0].skills.map((s: { name: string }) => s.name)).toEqual(['good']);
  });
});
