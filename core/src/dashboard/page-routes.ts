/**
 * The dashboard's page: `/` (its `index.html`, under a Content-Security-Policy that lets it
 * load and call only its own origin) and `/assets/*`. Public: the page holds no credential;
 * it gets one only by trading a login code (dashboard-routes.ts).
 */
import type { FastifyInstance } from 'fastify';
import { TuttiError } from '../errors/index.js';
import { HEADERS, refuse } from './answers.js';
import { PAGE_DIR, pageAsset, pageIndex } from './page-files.js';

const PAGE_POLICY =
  "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function messagePage(title: string, message: string): string {
  return `<!doctype html><html lang="en"><meta charset="utf-8"><title>${escapeHtml(title)}</title><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(message)}</p></body></html>`;
}

/** Adds `/` and `/assets/:name` to `app`; `config` marks them as the dashboard's. */
export function registerPageRoutes(app: FastifyInstance, config: object): void {
  app.route({
    method: 'GET',
    url: '/',
    config,
    handler: async (_request, reply) => {
      const index = await pageIndex();
      if (!index) {
        const error = new TuttiError('TUTTI_ERR_DASHBOARD_NOT_BUILT', { dir: PAGE_DIR });
        return reply
          .code(error.status)
          .headers(HEADERS)
          .type('text/html; charset=utf-8')
          .send(messagePage('Dashboard not built', `${error.code}: ${error.message}`));
      }
      return reply
        .headers({ ...HEADERS, 'content-security-policy': PAGE_POLICY })
        .type(index.type)
        .send(index.body);
    },
  });

  app.route({
    method: 'GET',
    url: '/assets/:name',
    config,
    handler: async (request, reply) => {
      const name = (request.params as { name: string }).name;
      const file = await pageAsset(name);
      if (!file) {
        const error = new TuttiError('TUTTI_ERR_CONTROL_NOT_FOUND', {
          what: `GET /assets/${name}`,
        });
        return refuse(reply, error);
      }
      return reply.headers(HEADERS).type(file.type).send(file.body);
    },
  });
}
