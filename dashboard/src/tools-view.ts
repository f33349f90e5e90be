/** One connector's tools exactly as agents list them: `<key>_` names and descriptions. */
import type { Tool } from './api';
import { h } from './dom';

/** The view of `key`'s tools; `back` returns to the connectors. */
export function toolsView(key: string, tools: readonly Tool[], back: () => void): HTMLElement {
  const own = tools.filter((tool) => tool.name.startsWith(`${key}_`));
  return h(
    'section',
    { 'aria-labelledby': 'tools-title' },
    h('h2', { id: 'tools-title' }, `Tools of ${key}`),
    h('p', {}, h('button', { type: 'button', onclick: back }, 'Back to connectors')),
    h(
      'p',
      {},
      `${own.length} tool${own.length === 1 ? '' : 's'}, as agents see them on the connector MCP server.`,
    ),
    own.length
      ? h(
          'dl',
          { class: 'tools', id: 'tools' },
          ...own.flatMap((tool) => [
            h('dt', {}, h('code', {}, tool.name)),
            h('dd', {}, tool.description || '(no description)'),
          ]),
        )
      : h('p', { class: 'empty' }, `${key} serves no MCP tool now.`),
  );
}
