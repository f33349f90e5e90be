import { afterEach, describe, expect, it } from 'vitest';
import { onceOption } from './acp-turn.js';
import { closeAll, scriptedHost } from '@tutti/test-kit/scripted-acp';

afterEach(closeAll);

/** Every kind of option ACP defines, the "always" ones first. */
const EVERY_KIND = [
  { optionId: 'allow-always', name: 'Always allow', kind: 'allow_always' },
  { optionId: 'reject-always', name: 'Always reject', kind: 'reject_always' },
  { optionId: 'allow-once', name: 'Allow', kind: 'allow_once' },
  { optionId: 'reject-once', name: 'Reject', kind: 'reject_once' },
];
const ONLY_ALWAYS = EVERY_KIND.slice(0, 2);

describe('onceOption', () => {
  it('picks allow_once for an allow and reject_once for a deny', () => {
    expect(onceOption(EVERY_KIND, 'allow')?.optionId).toBe('allow-once');
    expect(onceOption(EVERY_KIND, 'deny')?.optionId).toBe('reject-once');
  });

  it('picks no option when the agent offers only "always" ones', () => {
    expect(onceOption(ONLY_ALWAYS, 'allow')).toBeUndefined();
    expect(onceOption(ONLY_ALWAYS, 'deny')).toBeUndefined();
  });
});

describe('ACP permission answers, with a scripted agent', () => {
  it.each([
    [
      'answers an allow with the allow_once option, never an "always" one',
      'allow',
      EVERY_KIND,
      { outcome: 'selected', optionId: 'allow-once' },
    ],
    [
      'answers a deny with the reject_once option, never an "always" one',
      'deny',
      EVERY_KIND,
      { outcome: 'selected', optionId: 'reject-once' },
    ],
    [
      'answers an allow with cancelled when the agent offers only "always" options',
      'allow',
      ONLY_ALWAYS,
      { outcome: 'cancelled' },
    ],
    [
      'answers a deny with cancelled when the agent offers only "always" options',
      'deny',
      ONLY_ALWAYS,
      { outcome: 'cancelled' },
    ],
  ] as const)('%s', async (_, answer, options, outcome) => {
    const agent = scriptedHost({
      ACP_SCRIPT_HTTP: 'true',
      ACP_SCRIPT_PERMISSION: JSON.stringify(options),
    });
    const info = await agent.host.createSession(agent.request);
    const events: { type: string }[] = [];
    const { done } = await agent.host
      .session(info.id)
      .startTurn([{ type: 'text', text: 'touch the marker' }], (event) => {
        events.push(event);
        if (event.type === 'permission') {
          agent.host.session(info.id).answerPermission(event.requestId, answer);
        }
      });
    await done;
    expect(events.filter((event) => event.type === 'permission')).toHaveLength(1);
    expect(events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
    const answered = agent.received().find((message) => message.id === 9001 && !message.method);
    expect(answered?.result).toEqual({ outcome });
  });
});
