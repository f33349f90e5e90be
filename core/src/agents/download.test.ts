import { describe, expect, it } from 'vitest';
import { checkRedirect } from './download.js';

const original = (url: string) => new URL(url);

describe('download redirects', () => {
  it('refuses a redirect from https to plain http on this machine', () => {
    const from = original('https://example.test/agent.tar.gz');
    for (const location of [
      'http://127.0.0.1:8080/admin',
      'http://localhost/x',
      'http://[::1]:9/x',
    ]) {
      expect(() => checkRedirect(from, from, location)).toThrow(
        expect.objectContaining({
          code: 'TUTTI_ERR_AGENT_DOWNLOAD_FAILED',
          message: expect.stringContaining(
            'the https address https://example.test/agent.tar.gz redirected to it',
          ),
        }),
      );
    }
  });

  it('judges a redirect to plain http by the address the download started at', () => {
    const from = original('http://127.0.0.1:1/a');
    const hop = original('https://example.test/b');
    expect(checkRedirect(from, from, 'https://example.test/b').href).toBe(hop.href);
    expect(() => checkRedirect(from, hop, 'http://127.0.0.1:2/c')).not.toThrow();
    const secure = original('https://example.test/a');
    expect(() => checkRedirect(secure, hop, 'http://127.0.0.1:2/c')).toThrow(
      expect.objectContaining({ code: 'TUTTI_ERR_AGENT_DOWNLOAD_FAILED' }),
    );
  });

  it('follows https to https, and loopback http to loopback http, resolving relative locations', () => {
    const secure = original('https://example.test/a/agent.tar.gz');
    expect(checkRedirect(secure, secure, '/b/agent.tar.gz').href).toBe(
      'https://example.test/b/agent.tar.gz',
    );
    expect(checkRedirect(secure, secure, 'https://cdn.example.test/x').href).toBe(
      'https://cdn.example.test/x',
    );
    const local = original('http://127.0.0.1:1/a');
    expect(checkRedirect(local, local, 'http://localhost:2/b').href).toBe('http://localhost:2/b');
    expect(() => checkRedirect(local, local, 'http://example.test/b')).toThrow(
      expect.objectContaining({ message: expect.stringContaining('plain http is allowed only') }),
    );
  });
});
