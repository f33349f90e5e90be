/**
 * The agents view: the ACP agents installed from the registry or from a signed extension
 * (`GET /v1/agents`), one row each with its name and id, version, source (the extension's
 * pinned version), size on disk, whether sessions can use it (its provider is registered,
 * else why not) and when it was installed; a Remove button per agent (asks first; a refusal,
 * such as an agent whose sessions run, is said as the daemon words it). Above them, the
 * install form: a registry entry (`agent.json`) or an extension source pasted as JSON, or a
 * registry id, with install scripts off unless ticked; an install can take a minute, so
 * the form shows that it is working and for how long. The form is kept across refreshes
 * (what is typed survives) and the table is redrawn only when the agents changed.
 */
import { type Agent, call } from './api';
import { act } from './act';
import { dateTimeOf, h } from './dom';

/** What the view needs from the page. */
export interface AgentsViewHost {
  say(message: string, isError?: boolean): void;
  refresh(): void;
}

/** What `POST /agents/install` is sent, and how the page names it while it works. */
interface InstallRequest {
  readonly body: Record<string, unknown>;
  readonly label: string;
}

/**
 * The install request of what was typed: a JSON object is an extension source when it has
 * a `publicKey`, else a registry entry; one word is a registry id. Throws what to type.
 */
export function installRequestOf(text: string, allowInstallScripts: boolean): InstallRequest {
  const typed = text.trim();
  const scripts = allowInstallScripts ? { allowInstallScripts: true } : {};
  if (typed.startsWith('{')) {
    let parsed: unknown;
    try {
      parsed = JSON.parse(typed);
    } catch (error) {
      throw new Error(
        `The entry is not valid JSON (${(error as Error).message}): paste the whole agent.json, or type a registry id.`,
      );
    }
    const object = parsed as Record<string, unknown>;
    if ('publicKey' in object) {
      return {
        body: { extension: object, ...scripts },
        label: `the signed extension ${String(object.agent)} ${String(object.version)}`,
      };
    }
    return {
      body: { entry: object, ...scripts },
      label: `${String(object.id)} ${String(object.version)}`,
    };
  }
  if (!/^\S+$/.test(typed)) {
    throw new Error(
      'Paste a registry entry (the JSON of its agent.json) or type one registry id (one word).',
    );
  }
  return { body: { id: typed, ...scripts }, label: typed };
}

const UNITS = ['KiB', 'MiB', 'GiB', 'TiB'];

/** `bytes` for people: `812 B`, `4.0 KiB`, `37 MiB`. */
export function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  let size = bytes;
  let unit = -1;
  while (size >= 1024 && unit < UNITS.length - 1) {
    size /= 1024;
    unit += 1;
  }
  return `${size.toFixed(size < 10 ? 1 : 0)} ${UNITS[unit]}`;
}

/** The source cell: the registry, or the signed extension with its pinned version. */
function sourceOf(agent: Agent): (Node | string)[] {
  if (agent.source !== 'extension') return ['registry'];
  const extension = agent.extension;
  if (!extension) return ['signed extension'];
  const files = extension.files.length;
  return [
    `signed extension ${extension.version}`,
    h('br'),
    h('small', {}, `${files} file${files === 1 ? '' : 's'}`),
  ];
}

/** The view; `update` redraws it from the latest agents (`undefined`: not read yet). */
export function agentsView(host: AgentsViewHost) {
  const body = h('tbody');
  const empty = h('p', { class: 'empty' }, 'No agent is installed.');
  const text = h('textarea', {
    id: 'agent-install',
    name: 'entry',
    rows: 5,
    required: true,
    placeholder: '{"id": "…", "name": "…", "version": "…", "distribution": {…}}  or  a-registry-id',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const scripts = h('input', { id: 'agent-install-scripts', type: 'checkbox' });
  const submit = h('button', { type: 'submit' }, 'Install');
  const elapsed = h('span', {});
  const working = h('p', { class: 'installing', hidden: true }, h('progress', {}), ' ', elapsed);
  const install = h(
    'form',
    {
      class: 'agent-install',
      'aria-label': 'Install an agent',
      onsubmit: (event: Event) => {
        event.preventDefault();
        let request: InstallRequest;
        try {
          request = installRequestOf(text.value, scripts.checked);
        } catch (error) {
          host.say((error as Error).message, true);
          return;
        }
        void installing(request);
      },
    },
    h(
      'label',
      { for: 'agent-install' },
      'Registry entry (the JSON of its agent.json), extension source (JSON), or registry id',
    ),
    text,
    h(
      'div',
      { class: 'agent-install-options' },
      scripts,
      h(
        'label',
        { for: 'agent-install-scripts' },
        'Allow install scripts (npm runs the package’s own scripts; off unless you trust it)',
      ),
    ),
    h('div', {}, submit),
    working,
  );

  /** Installs, with the form busy and the time it has taken shown until the answer. */
  async function installing(request: InstallRequest): Promise<void> {
    const started = Date.now();
    const tick = () => {
      const seconds = Math.floor((Date.now() - started) / 1000);
      elapsed.textContent = `Installing ${request.label}: ${seconds} s (downloading, verifying and unpacking can take a minute)`;
    };
    tick();
    const timer = setInterval(tick, 1000);
    submit.disabled = true;
    install.setAttribute('aria-busy', 'true');
    working.hidden = false;
    try {
      await act(host, `Installing ${request.label}`, async () => {
        const { agent } = await call<{ agent: Agent }>('POST', '/agents/install', request.body);
        text.value = '';
        scripts.checked = false;
        const unusable = agent.provider?.registered === false;
        return `Installed ${agent.id} ${agent.version}.${
          unusable ? ` Sessions cannot use it yet: ${agent.provider.problem ?? 'no provider'}.` : ''
        }`;
      });
    } finally {
      clearInterval(timer);
      submit.disabled = false;
      install.removeAttribute('aria-busy');
      working.hidden = true;
    }
  }

  const table = h(
    'table',
    { id: 'agents', hidden: true },
    h('caption', {}, 'Installed agents'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'Agent',
          'Version',
          'Source',
          'Size on disk',
          'Sessions can use it',
          'Installed',
          'Actions',
        ].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    body,
  );
  const reading = h('p', { class: 'empty' }, 'Reading the installed agents…');
  empty.hidden = true;
  const element = h(
    'section',
    { 'aria-labelledby': 'agents-title' },
    h('h2', { id: 'agents-title' }, 'Agents'),
    install,
    table,
    empty,
    reading,
  );

  const rowOf = (agent: Agent) =>
    h(
      'tr',
      { 'data-agent': agent.id },
      h(
        'td',
        { class: 'agent' },
        agent.name,
        h('br'),
        h('code', {}, agent.id),
        ...(agent.description ? [h('p', { class: 'reason' }, agent.description)] : []),
      ),
      h('td', { class: 'version' }, agent.version),
      h('td', { class: 'source', 'data-source': agent.source }, ...sourceOf(agent)),
      h(
        'td',
        {
          class: 'size',
          'data-bytes': agent.sizeBytes,
          title: `${agent.sizeBytes.toLocaleString()} bytes`,
        },
        sizeOf(agent.sizeBytes),
      ),
      h(
        'td',
        { class: 'provider', 'data-registered': String(agent.provider.registered) },
        agent.provider.registered ? 'yes' : 'no',
        ...(agent.provider.problem ? [h('p', { class: 'reason' }, agent.provider.problem)] : []),
      ),
      h('td', { class: 'installed' }, dateTimeOf(agent.installedAt)),
      h(
        'td',
        {},
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            'aria-label': `Remove ${agent.id}`,
            onclick: () => {
              if (
                !window.confirm(
                  `Remove ${agent.name} (${agent.id})? Its files are deleted and new sessions of it are refused.`,
                )
              )
                return;
              void act(host, `Removing ${agent.id}`, async () => {
                await call('DELETE', `/agents/${encodeURIComponent(agent.id)}`);
                return `Removed ${agent.id}.`;
              });
            },
          },
          'Remove',
        ),
      ),
    );

  /** The agents drawn now, so an unchanged list is not redrawn (focus stays put). */
  let drawn: string | undefined;
  return {
    element,
    update(agents: readonly Agent[] | undefined) {
      reading.hidden = agents !== undefined;
      if (agents === undefined) return;
      const key = JSON.stringify(agents);
      if (key !== drawn) {
        drawn = key;
        body.replaceChildren(...agents.map(rowOf));
      }
      empty.hidden = agents.length > 0;
      table.hidden = agents.length === 0;
    },
  };
}
