/**
 * The docs check's reading of markdown: fenced blocks, the `<!-- docs-check: … -->` marker before a block,
 * and the commands of a block with the outcome each one promises.
 *
 * Marker (an HTML comment on the line before the fence, invisible on GitHub):
 *   <!-- docs-check: run relay=plain|simulator [events=TypeA,TypeB] -->  run the block against that relay;
 *        after it, each listed event type must be among the events file's new lines
 *   <!-- docs-check: console relay=plain|simulator -->  every line of the block must show in the relay's
 *        console (`…` matches anything)
 *   <!-- docs-check: skip <reason> -->                  not run, with the reason why
 *
 * Promises inside a block, under the command they are about:
 *   # → 201 {"transaction":{…"status":"PENDING"…}   HTTP status (curl) and output; `…` matches anything, the
 *                                                     rest must appear in order; two spaces end the promise
 *   npm run sim -- momo pay   # … → TransactionSucceeded   exit 0 and the named event types in the output
 *   $ npm run sim -- …  (transcript)               exit 0 and every `✔ …` line of the excerpt in the output
 */
import { readFileSync } from 'node:fs';

export type Relay = 'plain' | 'simulator';

export type Marker =
  | { kind: 'run'; relay: Relay; events: string[] }
  | { kind: 'console'; relay: Relay }
  | { kind: 'skip'; reason: string };

export interface Block {
  file: string;
  line: number;
  lang: string;
  text: string;
  marker?: Marker;
}

export interface Command {
  /** The command as written (continuation lines joined). */
  text: string;
  line: number;
  /** HTTP status promised by `# → <status> …` (curl commands). */
  status?: number;
  /** Output promised, as fragments that must appear in order. */
  output?: string[];
  /** Event types named by an inline `# … → …` comment or a transcript's excerpt. */
  events: string[];
  /** Lines of a transcript's excerpt that must appear verbatim (`✔ as expected: …`). */
  lines: string[];
}

const MARKER = /^<!--\s*docs-check:\s*(.*?)\s*-->$/;
const EVENT_NAME =
  /\b(?:Transaction|Callback|C2B|Account|Reversal|Badge)[A-Z][A-Za-z]*\b|\bC2BValidationDecided\b/g;

export function parseMarker(raw: string): Marker {
  const [kind = '', ...rest] = raw.split(/\s+/);
  if (kind === 'skip') {
    if (!rest.length) throw new Error(`docs-check skip needs a reason: "${raw}"`);
    return { kind: 'skip', reason: rest.join(' ') };
  }
  const options = Object.fromEntries(rest.map((part) => part.split('=', 2) as [string, string]));
  const relay = options.relay;
  if (relay !== 'plain' && relay !== 'simulator')
    throw new Error(`docs-check ${kind} needs relay=plain or relay=simulator: "${raw}"`);
  if (kind === 'console') return { kind, relay };
  if (kind === 'run')
    return { kind, relay, events: options.events ? options.events.split(',').filter(Boolean) : [] };
  throw new Error(`unknown docs-check marker "${raw}"`);
}

export function readBlocks(file: string, text = readFileSync(file, 'utf8')): Block[] {
  const lines = text.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^(\s*)(`{3,})(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const [, indent = '', fence = '', lang = ''] = open;
    let end = i + 1;
    while (end < lines.length && lines[end]!.trim() !== fence) end++;
    const body = lines
      .slice(i + 1, end)
      .map((l) => (l.startsWith(indent) ? l.slice(indent.length) : l))
      .join('\n');
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = before >= 0 ? MARKER.exec(lines[before]!.trim()) : null;
    blocks.push({
      file,
      line: i + 1,
      lang,
      text: body,
      marker: marker ? parseMarker(marker[1]!) : undefined,
    });
    i = end;
  }
  return blocks;
}

export const isShell = (block: Block) => ['bash', 'sh', 'shell', 'console'].includes(block.lang);

/** Splits `# → <status> <output>  (commentary)` into its status and output fragments. */
export function parsePromise(text: string): { status?: number; output?: string[] } {
  const promise = text.split(/\s{2,}/)[0]!.trim();
  const m = /^(\d{3})(?:\s+(.*))?$/.exec(promise);
  const status = m ? Number(m[1]) : undefined;
  const rest = m ? (m[2] ?? '') : promise;
  const output = rest.split('…').filter((f) => f !== '');
  return { status, output: output.length ? output : undefined };
}

/** The commands of a shell block, each with what the block promises about it. */
export function readCommands(block: Block): Command[] {
  const lines = block.text.split('\n');
  const commands: Command[] = [];
  let current: Command | undefined;
  for (let i = 0; i < lines.length; i++) {
    const raw = lines[i]!;
    const line = block.line + 1 + i;
    const trimmed = raw.trim();
    if (trimmed.startsWith('$ ')) {
      // A transcript: the command, then an excerpt of its output up to the next `$ ` or the block's end.
      current = { text: trimmed.slice(2), line, events: [], lines: [] };
      commands.push(current);
      while (i + 1 < lines.length && !lines[i + 1]!.trim().startsWith('$ ')) {
        const out = lines[++i]!.trim();
        if (out.startsWith('✔ ')) current.lines.push(out);
      }
      continue;
    }
    if (trimmed === '') continue;
    if (trimmed.startsWith('#')) {
      const arrow = /^#\s*→\s*(.*)$/.exec(trimmed);
      if (arrow && current && current.status === undefined && current.output === undefined)
        Object.assign(current, parsePromise(arrow[1]!));
      continue;
    }
    let text = raw;
    // A command goes on after a line ending in `\`, `|` or `&&`.
    while (/(\\|\||&&)$/.test(text.trimEnd()) && i + 1 < lines.length) text = `${text}\n${lines[++i]!}`;
    // An inline comment (`cmd   # … → TransactionSucceeded …`) names the events the command promises.
    const inline = text.startsWith('npm ') ? /\s+#\s(.*)$/.exec(text) : null;
    const events: string[] = [];
    if (inline) {
      text = text.slice(0, inline.index);
      // What follows the arrow, without parenthesized asides ("(late TransactionFailed at 30 s)").
      const after = inline[1]!
        .split('→')
        .slice(1)
        .join('→')
        .replace(/\([^)]*\)/g, '');
      events.push(...(after.match(EVENT_NAME) ?? []));
    }
    current = { text: text.trim(), line, events, lines: [] };
    commands.push(current);
  }
  return commands;
}

/** Whether `fragments` appear in `text` in order. */
export function inOrder(text: string, fragments: string[]): boolean {
  let at = 0;
  for (const fragment of fragments) {
    const found = text.indexOf(fragment, at);
    if (found < 0) return false;
    at = found + fragment.length;
  }
  return true;
}

/**
 * The anchors a markdown file offers, as GitHub makes them: each heading lowercased, punctuation other than
 * `-` and `_` dropped, spaces made `-`, a repeated one suffixed `-1`, `-2`, …; and explicit `id`/`name`
 * attributes. Headings inside fenced blocks are not headings.
 */
export function anchorsOf(text: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | undefined;
  for (const line of text.split('\n')) {
    const f = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (f && (fence === undefined || f.startsWith(fence))) {
      fence = fence === undefined ? f : undefined;
      continue;
    }
    if (fence !== undefined) continue;
    for (const m of line.matchAll(/\s(?:id|name)="([^"]+)"/g)) anchors.add(m[1]!);
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const slug = heading
      .toLowerCase()
      .replace(/<[^>]*>/g, '')
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n ? `${slug}-${n}` : slug);
  }
  return anchors;
}
