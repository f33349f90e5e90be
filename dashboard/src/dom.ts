/** A tiny element builder: the page has no framework, only these few DOM helpers. */

type Child = Node | string | number | null | undefined | false;

/** Attributes: `on<event>` names take a listener, everything else is set as an attribute. */
type Attributes = Record<string, string | number | boolean | EventListener | undefined>;

/** `<tag ...attributes>children</tag>`; text children are text nodes, never HTML. */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attributes: Attributes = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') element.addEventListener(name.slice(2), value);
    else element.setAttribute(name, value === true ? '' : String(value));
  }
  element.append(...children.filter(isChild).map((c) => (c instanceof Node ? c : String(c))));
  return element;
}

function isChild(child: Child): child is Node | string | number {
  return child !== null && child !== undefined && child !== false;
}

/** A `<time>` of an instant (ms since the epoch or an ISO string), in local time. */
export function timeOf(at: number | string): HTMLTimeElement {
  const date = new Date(at);
  return h('time', { datetime: date.toISOString() }, date.toLocaleTimeString());
}

/** A `<time>` of an instant with its date, in local time. */
export function dateTimeOf(at: number | string): HTMLTimeElement {
  const date = new Date(at);
  return h('time', { datetime: date.toISOString() }, date.toLocaleString());
}
