/**
 * What hosts hear of a connector's changes through `GET /v1/events`: one event per change,
 * published by the runtime once the change took effect: an install is `connector.installed`
 * (not also `connector.started`), an upgrade `connector.upgraded`, an uninstall
 * `connector.removed`, and a reinstall of the same content nothing.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, writeRelease, tempHomes } from '@tutti/test-kit';
import { openEvents } from '@tutti/test-kit/event-stream';
import { startTuttid, stopAll } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-connector-events-');

afterEach(async () => {
  await stopAll();
  await homes.removeAll();
  await cleanUp();
});

describe('connector events', () => {
  it('publishes one event per install, upgrade and uninstall, and none for the same content again', async () => {
    const daemon = await startTuttid(await homes.make(), ['--no-demo']);
    const events = await openEvents(daemon);
    try {
      const connectorEvents = () => events.events.filter((e) => e.type.startsWith('connector.'));
      const first = await writeRelease({ key: 'evented', serverArgs: [] });
      expect((await daemon.control('POST', '/v1/connectors/install', { path: first })).status).toBe(
        200,
      );
      await events.waitFor((e) => e.type === 'connector.installed');
      expect(connectorEvents().map((e) => [e.type, e.key])).toEqual([
        ['connector.installed', 'evented'],
      ]);

      const again = await daemon.control('POST', '/v1/connectors/install', { path: first });
      expect(again.body.changed).toBe(false);

      const next = await writeRelease({ key: 'evented', version: '2.0.0', serverArgs: [] });
      await daemon.control('POST', '/v1/connectors/install', { path: next });
      await events.waitFor((e) => e.type === 'connector.upgraded');
      expect((await daemon.control('DELETE', '/v1/connectors/evented')).status).toBe(200);
      await events.waitFor((e) => e.type === 'connector.removed');
      expect(connectorEvents().map((e) => [e.type, e.key])).toEqual([
        ['connector.installed', 'evented'],
        ['connector.upgraded', 'evented'],
        ['connector.removed', 'evented'],
      ]);
      expect(connectorEvents()[1]).toMatchObject({ version: '2.0.0' });
    } finally {
      events.close();
    }
  });

  it('ends every event stream when it stops, without waiting for the hosts that follow them', async () => {
    const daemon = await startTuttid(await homes.make(), ['--no-demo']);
    const response = await fetch(`${daemon.ready.controlUrl}/v1/events`, {
      headers: { authorization: `Bearer ${daemon.controlToken}` },
    });
    expect(response.status).toBe(200);
    // The host keeps reading; the daemon's stop ends the stream (it used to wait on it).
    const ended = response.text();
    daemon.child.kill('SIGTERM');
    await daemon.exited;
    expect(await ended).toContain('the daemon is stopping');
  });
});
