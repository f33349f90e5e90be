import { describe, expect, it } from 'vitest';
import type { ElicitationRequest } from '../contracts/index.js';
import {
  askPerson,
  MAX_ELICITATION_MESSAGE,
  readElicitationAnswer,
  readElicitationRequest,
  readProgress,
} from './elicitation-checks.js';

const form: ElicitationRequest = {
  mode: 'form',
  message: 'q',
  requestedSchema: { type: 'object', properties: {} },
};
const url: ElicitationRequest = { mode: 'url', message: 'q', url: 'https://example.com/' };

describe('readElicitationRequest', () => {
  it('takes a form request without a mode as a form, up to the message bound', () => {
    const params = { message: 'm'.repeat(MAX_ELICITATION_MESSAGE), requestedSchema: {} };
    expect(readElicitationRequest(params)).toBeUndefined();
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    expect(readElicitationRequest({ ...params, requestedSchema: schema })).toEqual({
      mode: 'form',
      message: params.message,
      requestedSchema: schema,
    });
    expect(
      readElicitationRequest({ message: `${params.message}!`, requestedSchema: schema }),
    ).toBeUndefined();
  });

  it('copies the schema, so later changes to the upstream object do not reach the agent', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' } } };
    const request = readElicitationRequest({ message: 'm', requestedSchema: schema });
    schema.properties.a.type = 'number';
    expect(request?.requestedSchema).toEqual({
      type: 'object',
      properties: { a: { type: 'string' } },
    });
  });

  it('takes an http(s) URL with its id, and refuses an id that is not a bounded string', () => {
    expect(
      readElicitationRequest({
        mode: 'url',
        message: 'm',
        url: 'http://127.0.0.1/x',
        elicitationId: 'e1',
      }),
    ).toEqual({ mode: 'url', message: 'm', url: 'http://127.0.0.1/x', elicitationId: 'e1' });
    expect(
      readElicitationRequest({ mode: 'url', message: 'm', url: 'https://a.b/', elicitationId: 7 }),
    ).toBeUndefined();
    expect(readElicitationRequest({ mode: 'url', message: 'm', url: 'not a url' })).toBeUndefined();
  });
});

describe('readElicitationAnswer', () => {
  it('keeps an accepted flat form and refuses anything deeper or larger as cancel', () => {
    const content = { s: 'x', n: 1.5, b: false, l: ['a'] };
    expect(readElicitationAnswer({ action: 'accept', content }, form)).toEqual({
      action: 'accept',
      content,
    });
    const many = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, i]));
    for (const bad of [
      many,
      { n: Number.NaN },
      { n: Number.POSITIVE_INFINITY },
      { s: 'x'.repeat(16 * 1024 + 1) },
      { l: Array.from({ length: 257 }, () => 'a') },
      { l: ['a', 1] },
      { o: null },
      ['a'],
    ]) {
      expect(readElicitationAnswer({ action: 'accept', content: bad }, form)).toEqual({
        action: 'cancel',
      });
    }
  });

  it('sends no content with a URL-mode accept, and an accept without content as it is', () => {
    expect(readElicitationAnswer({ action: 'accept', content: { a: 'b' } }, url)).toEqual({
      action: 'accept',
    });
    expect(readElicitationAnswer({ action: 'accept' }, form)).toEqual({ action: 'accept' });
  });

  it('answers cancel for a rejected, thrown or missing answer', async () => {
    expect(await askPerson(undefined, form)).toEqual({ action: 'cancel' });
    expect(await askPerson(() => Promise.reject(new Error('no')), form)).toEqual({
      action: 'cancel',
    });
    expect(
      await askPerson(() => {
        throw new Error('sync');
      }, form),
    ).toEqual({ action: 'cancel' });
    expect(await askPerson(async () => undefined as never, form)).toEqual({ action: 'cancel' });
  });
});

describe('readProgress', () => {
  it('takes a finite progress, drops a total that is not a number, cuts a long message', () => {
    expect(readProgress({ progress: 1, total: 'lots', message: 'm'.repeat(5000) })).toEqual({
      progress: 1,
      message: 'm'.repeat(1024),
    });
    expect(readProgress({ progress: Number.NaN })).toBeUndefined();
    expect(readProgress(null)).toBeUndefined();
  });
});
