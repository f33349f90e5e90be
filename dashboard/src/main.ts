/**
 * The dashboard page: signs in with the one-time code of the login link (credential.ts),
 * shows one view at a time (connectors, one connector's tools, installed agents, sessions,
 * tool calls, live events) and keeps every view current from the daemon's event stream,
 * without a reload (the tool calls view reads on by itself while shown: no event carries a
 * call; the installed agents are read only while their view is shown, since each read
 * measures their size on disk).
 */
import { agentsView } from './agents-view';
import {
  type Agent,
  ApiError,
  type Connector,
  call,
  type DaemonSandbox,
  login,
  logout,
  type PendingElicitation,
  type Session,
  type Tool,
  whenSignedOut,
} from './api';
import { connectorsView } from './connectors-view';
import { sessionToken, takeLoginCode } from './credential';
import { h } from './dom';
import { eventsView } from './events-view';
import { followEvents, type LiveEvent } from './live-events';
import { sessionsView } from './sessions-view';
import { toolCallsView } from './tool-calls-view';
import { toolsView } from './tools-view';
import './style.css';

type View = 'connectors' | 'agents' | 'sessions' | 'calls' | 'events' | { tools: string };

// The login code leaves the address bar and the tab's history before anything else runs.
const loginCode = takeLoginCode();

/** Events kept on the page. */
const KEPT_EVENTS = 200;
/** How often the page re-reads the daemon besides the events. */
const POLL_MS = 5000;
/** How long one refresh waits for the daemon's listings before the next one may run. */
const REFRESH_TIMEOUT_MS = 15_000;

const main = document.getElementById('main') as HTMLElement;
const notice = document.getElementById('notice') as HTMLElement;
const nav = document.getElementById('nav') as HTMLElement;
const logoutButton = document.getElementById('logout') as HTMLButtonElement;

const state = {
  view: 'connectors' as View,
  connectors: [] as Connector[],
  /** How the daemon isolates connector servers, when its answer says. */
  sandbox: undefined as DaemonSandbox | undefined,
  tools: [] as Tool[],
  /** The installed agents, once read (only while their view is shown). */
  agents: undefined as Agent[] | undefined,
  sessions: [] as Session[],
  /** What the agents of live sessions are asked and nobody answered yet. */
  elicitations: [] as PendingElicitation[],
  toolsVersion: 0,
  events: [] as LiveEvent[],
  connected: false,
  signedIn: false,
};
const stream = new AbortController();

const host = {
  say(message: string, isError = false) {
    notice.textContent = message;
    notice.classList.toggle('error', isError);
  },
  refresh: () => scheduleRefresh(),
  showTools: (key: string) => show({ tools: key }, true),
};
const connectors = connectorsView(host);
const calls = toolCallsView(host);
const agents = agentsView(host);

/** Shows `title`, why, and how to get a new login link; hides the views. */
function showSignedOut(title: string, why?: string): void {
  nav.hidden = true;
  logoutButton.hidden = true;
  host.say('');
  main.replaceChildren(
    h(
      'section',
      { 'aria-labelledby': 'signed-out-title' },
      h('h2', { id: 'signed-out-title' }, title),
      why ? h('p', { class: 'error' }, why) : null,
      h(
        'p',
        {},
        'Open the one-time login link that tuttid printed when it started (it works once, for 5 minutes). ',
        'For a new link, ask the control API: ',
        h('code', {}, 'POST /v1/dashboard/login'),
        ' (see docs/dashboard.md).',
      ),
    ),
  );
}

function signedOut(): void {
  if (!state.signedIn) return;
  state.signedIn = false;
  stream.abort();
  calls.stop();
  showSignedOut('Signed out');
}
whenSignedOut(signedOut);

function render(): void {
  if (!state.signedIn) return;
  for (const button of nav.querySelectorAll('button')) {
    const current =
      button.dataset.view === (typeof state.view === 'string' ? state.view : 'connectors');
    if (current) button.setAttribute('aria-current', 'page');
    else button.removeAttribute('aria-current');
  }
  const view = state.view;
  if (view === 'connectors') {
    connectors.update(state.connectors, state.sandbox);
    if (main.firstElementChild !== connectors.element) main.replaceChildren(connectors.element);
    shown = '';
  } else if (view === 'agents') {
    agents.update(state.agents);
    if (main.firstElementChild !== agents.element) main.replaceChildren(agents.element);
    shown = '';
  } else if (view === 'sessions') {
    redraw(['sessions', state.sessions, state.elicitations, state.toolsVersion], () =>
      sessionsView(state.sessions, state.toolsVersion, host, state.elicitations),
    );
  } else if (view === 'calls') {
    calls.update(state.connectors.map((connector) => connector.key));
    if (main.firstElementChild !== calls.element) main.replaceChildren(calls.element);
    shown = '';
  } else if (view === 'events') {
    redraw(['events', state.events.at(-1)?.id, state.connected], () =>
      eventsView(state.events, state.connected),
    );
  } else {
    redraw(['tools', view.tools, state.tools], () =>
      toolsView(view.tools, state.tools, () => show('connectors', true)),
    );
  }
}

/** What the main area shows now, so an unchanged view is not redrawn (focus stays put). */
let shown = '';
function redraw(what: unknown, build: () => HTMLElement): void {
  const key = JSON.stringify(what);
  if (key === shown && main.firstElementChild) return;
  shown = key;
  main.replaceChildren(build());
}

function show(view: View, focus = false): void {
  // What an action in the view left before is no news in another one.
  if (state.view !== view) host.say('');
  state.view = view;
  if (view === 'calls') calls.start();
  else calls.stop();
  render();
  if (focus) main.querySelector('h2')?.setAttribute('tabindex', '-1');
  if (focus) (main.querySelector('h2') as HTMLElement | null)?.focus();
  scheduleRefresh();
}

async function refresh(): Promise<void> {
  // A listing that never answers must not hold every later refresh behind it.
  const signal = AbortSignal.timeout(REFRESH_TIMEOUT_MS);
  try {
    const [list, tools, sessions, asked, installed] = await Promise.all([
      call<{ connectors: Connector[]; sandbox?: DaemonSandbox }>(
        'GET',
        '/connectors',
        undefined,
        signal,
      ),
      call<{ tools: Tool[]; version: number }>('GET', '/tools', undefined, signal),
      call<{ sessions: Session[]; toolsVersion: number }>('GET', '/sessions', undefined, signal),
      call<{ elicitations: PendingElicitation[] }>('GET', '/elicitations', undefined, signal),
      state.view === 'agents'
        ? call<{ agents: Agent[] }>('GET', '/agents', undefined, signal)
        : undefined,
    ]);
    state.connectors = list.connectors;
    state.sandbox = list.sandbox;
    state.tools = tools.tools;
    state.sessions = sessions.sessions;
    state.elicitations = asked.elicitations;
    state.toolsVersion = sessions.toolsVersion;
    if (installed) state.agents = installed.agents;
    render();
  } catch (error) {
    if (error instanceof ApiError && error.code === 'TUTTI_ERR_DASHBOARD_SIGNED_OUT') return;
    if (signal.aborted) {
      host.say(
        `The daemon did not answer within ${REFRESH_TIMEOUT_MS / 1000} s; trying again.`,
        true,
      );
      return;
    }
    host.say(error instanceof ApiError ? `${error.code}: ${error.message}` : String(error), true);
  }
}

let pending: Promise<void> | undefined;
let again = false;
/** One refresh at a time; a request during one runs one more after it. */
function scheduleRefresh(): void {
  if (pending) {
    again = true;
    return;
  }
  pending = refresh().finally(() => {
    pending = undefined;
    if (again) {
      again = false;
      scheduleRefresh();
    }
  });
}

for (const button of nav.querySelectorAll('button')) {
  button.addEventListener('click', () => show(button.dataset.view as View, true));
}
logoutButton.addEventListener('click', async () => {
  await logout();
  signedOut();
});

/** Signs in (with the link's code, else the tab's session), then shows and follows. */
async function start(): Promise<void> {
  if (loginCode !== undefined) {
    try {
      await login(loginCode);
    } catch (error) {
      const why = error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
      showSignedOut('Login link not valid', why);
      return;
    }
  }
  if (!sessionToken()) {
    showSignedOut('Signed out');
    return;
  }
  state.signedIn = true;
  nav.hidden = false;
  logoutButton.hidden = false;
  render();
  scheduleRefresh();
  void followEvents(
    (event) => {
      state.events = [...state.events, event].slice(-KEPT_EVENTS);
      if (state.view === 'events') render();
      // The sign-in ended in another tab: say so here, where it began.
      if (event.type === 'connector.signed-in') host.say(`Signed in to ${String(event.key)}.`);
      scheduleRefresh();
    },
    (connected) => {
      state.connected = connected;
      if (state.view === 'events') render();
      // Connected again after a drop: what changed meanwhile may have no event left.
      if (connected) scheduleRefresh();
    },
    stream.signal,
  );
}

void start();
// A login link opened in this tab while it shows the page changes only the fragment, which
// loads nothing: load the page again to sign in with it.
window.addEventListener('hashchange', () => {
  if (location.hash.startsWith('#login=')) location.reload();
});
// What has no event (an agent's tools/list, new stderr lines) shows within a few seconds.
setInterval(() => {
  if (state.signedIn && !document.hidden) scheduleRefresh();
}, POLL_MS);
