/**
 * Regression: the control API's router refused a path segment over 100 characters (414)
 * and a broken percent-encoding (400) with fastify's own body, before the Host and token
 * guards, outside the documented `{ error: { code, message } }` shape. The fuzzer found
 * it with `DELETE /v1/connectors/<300 x "a">`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { buildControlApp } from '@tutti/core/internal';

const TOKEN = 'control-token-for-url-tests';
const apps: ReturnType<typeof buildControlApp>[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((app) => app.close()));
});

function app() {
  const built = buildControlApp({ controlToken: TOKEN, port: () => 80 });
  built.delete('/v1/connectors/:key', async (request) => ({
    key: (request.params as { key: string }).key,
  }));
  apps.push(built);
  return built;
}

describe('control API paths the router refuses', () => {
  it('answers a too long path segment with a 414 in the tutti error shape', async () => {
    const answer = await app().inject({
      method: 'DELETE',
      url: `/v1/connectors/${'a'.repeat(300)}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.statusCode).toBe(414);
    expect(answer.json().error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
    expect(answer.json().error.message).toContain('a path segment is too long');
  });

  it('answers a broken percent-encoding with a 400 in the tutti error shape', async () => {
    const answer = await app().inject({
      method: 'DELETE',
      url: '/v1/connectors/%E0%A4%A',
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.statusCode).toBe(400);
    expect(answer.json().error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
  });

  it('still serves a path segment within the limit', async () => {
    const answer = await app().inject({
      method: 'DELETE',
      url: `/v1/connectors/${'a'.repeat(100)}`,
      headers: { authorization: `Bearer ${TOKEN}` },
    });
    expect(answer.json()).toEqual({ key: 'a'.repeat(100) });
  });
});
