import { needsIsolation, showBidiControls } from './bidi';
import { formatInstant } from './time';

/** A few DOM helpers: the console is small enough not to need a framework. */

type Child = Node | string | number | null | undefined | false | Child[];
/** Attributes a browser shows as text (a tooltip, what a screen reader says). */
const SHOWN_ATTRIBUTES = new Set(['title', 'aria-label']);

type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.replace(/^on/, ''), value);
    else if (value === true) el.setAttribute(name, '');
    // A tooltip or a label is shown text too (a provider's message in a `title`): its bidi controls shown.
    else el.setAttribute(name, SHOWN_ATTRIBUTES.has(name) ? showBidiControls(String(value)) : String(value));
  }
  // A table scrolls inside its own box on a phone, a JSON block on any screen: each takes the keyboard
  // focus so that it can be scrolled without a mouse (axe: scrollable-region-focusable).
  if ((tag === 'table' || tag === 'pre') && !('tabindex' in attrs)) el.tabIndex = 0;
  append(el, children);
  return el;
}

/** Elements whose content is text only (or not HTML): a text goes in as a text node, never wrapped. */
const TEXT_ONLY = new Set(['OPTION', 'TEXTAREA', 'TITLE', 'STYLE', 'SCRIPT']);

/**
 * Every text the console shows goes in here (`h`, `append`, `replace`): its bidi controls shown as code
 * points, and a right-to-left text in a `<bdi>` (its direction isolated: it cannot reorder the cell's
 * other text, a number or a label beside it, nor bleed past its own end).
 */
function textNode(parent: Node, text: string): Node {
  const shown = document.createTextNode(showBidiControls(text));
  const html = parent instanceof HTMLElement && !TEXT_ONLY.has(parent.tagName);
  if (!html || !needsIsolation(text)) return shown;
  const isolated = document.createElement('bdi');
  isolated.appendChild(shown);
  return isolated;
}

export function append(parent: Node, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else parent.appendChild(typeof child === 'object' ? child : textNode(parent, String(child)));
  }
}

export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, children);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(
  tag: string,
  attrs: Record<string, string | number> = {},
  ...children: Child[]
): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attrs)) el.setAttribute(name, String(value));
  append(el, children);
  return el;
}

/** An instant in the zone the operator chose (console/time.ts); `account` picks its business zone. */
export function when(iso: string | null | undefined, account?: string): string {
  return iso ? formatInstant(iso, account) : '—';
}

export function statusPill(status: string | null | undefined): HTMLElement {
  return h('span', { class: `pill s-${(status ?? 'unknown').toLowerCase()}` }, status ?? '—');
}

export function notAvailable(what: string): HTMLElement {
  return h(
    'p',
    { class: 'na', 'data-testid': 'not-available' },
    `${what}: not available on this relay (the management API does not serve it yet).`,
  );
}

export function errorBox(error: unknown): HTMLElement {
  return h('p', { class: 'error', role: 'alert' }, error instanceof Error ? error.message : String(error));
}

/** yyyy-mm-dd of a date, the value of an `<input type=date>`. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
