/**
 * `npm run statement -- import FILE --account <provider>/<account> [--template NAME] [--dry-run]
 * [--relay URL] [--token T] [--by NAME] [--json]`: imports a statement file into a running relay (`npm start`, or a
 * deployed management API) through POST /v1/statements/{provider}/{account}/import (docs/statements.md).
 * A file over the request limit is sent in parts at line boundaries (each with the file's header lines);
 * every part is first sent as a dry run, so a malformed line anywhere imports nothing. A part the relay
 * took only in part in the time a request has (202, `next.from`) is sent again from there until done.
 *
 * `npm run statement -- day <provider>/<account> <YYYY-MM-DD> [--close] [--csv]`: the day as it
 * adds up (or closes it).
 *
 * The person recorded on an import or a close is the one the token names, or with the shared token the one
 * `--by` names (default: your login name), sent as X-Relay-Actor (docs/roles-and-audit.md#the-shared-token).
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { detectLayout, MAX_PREAMBLE_LINES } from '../shared/domain/statement-layouts';
import { MAX_STATEMENT_BYTES } from '../shared/http/statement-routes';
import { readCsv } from '../shared/util/csv';
import { loginName, parseCli } from './cli';

const USAGE =
  'Usage: npm run statement -- import FILE --account <provider>/<account> [--template NAME] [--dry-run] [--relay URL] [--token T] [--by NAME] [--json]\n' +
  '       npm run statement -- day <provider>/<account> <YYYY-MM-DD> [--close] [--csv]\n';

const { values, positionals } = parseCli(USAGE, {
  allowPositionals: true,
  options: {
    account: { type: 'string' },
    template: { type: 'string' },
    'dry-run': { type: 'boolean', default: false },
    close: { type: 'boolean', default: false },
    csv: { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    relay: { type: 'string', default: process.env.RELAY_URL ?? 'http://localhost:3000' },
    token: { type: 'string', default: process.env.RELAY_TOKEN ?? 'demo-admin-token' },
    by: { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

function fail(message: string): never {
  process.stderr.write(`${message}\n${USAGE}`);
  process.exit(2);
}

const base = values.relay!.replace(/\/$/, '');
// The person acting (docs/roles-and-audit.md#the-shared-token): the shared token names nobody itself.
const headers = { authorization: `Bearer ${values.token}`, 'x-relay-actor': values.by ?? loginName() };

function accountPath(value: string | undefined): string {
  const [provider, account, extra] = (value ?? '').split('/');
  if (!provider || !account || extra !== undefined)
    fail('Name the account as <provider>/<account>, e.g. daraja/ke-600638');
  return `${encodeURIComponent(provider)}/${encodeURIComponent(account)}`;
}

async function call(method: string, path: string, body?: string, contentType = 'text/csv'): Promise<unknown> {
  return (await send(method, path, body, contentType)).answer;
}

async function send(
  method: string,
  path: string,
  body?: string,
  contentType = 'text/csv',
): Promise<{ status: number; answer: unknown }> {
  let response: Response;
  try {
    response = await fetch(`${base}${path}`, {
      method,
      headers: { ...headers, ...(body !== undefined ? { 'content-type': contentType } : {}) },
      ...(body !== undefined ? { body } : {}),
    });
  } catch (error) {
    fail(`The relay at ${base} does not answer (${(error as Error).message}); is npm start running?`);
  }
  const text = await response.text();
  if (!response.ok) {
    process.stderr.write(`${response.status} ${text}\n`);
    process.exit(1);
  }
  const answer = response.headers.get('content-type')?.startsWith('application/json')
    ? JSON.parse(text)
    : text;
  return { status: response.status, answer };
}

interface ImportAnswer {
  layout: string;
  result: Record<string, number>;
  done?: boolean;
  next?: { from: number };
}

/** One part, sent again from where the relay stopped (202 `next.from`) until every row is taken. */
async function importPart(path: string, query: URLSearchParams, part: string): Promise<ImportAnswer> {
  const total: ImportAnswer = { layout: '', result: {} };
  for (let from = 0; ;) {
    const { status, answer } = await send('POST', `${path}?${query}${from ? `&from=${from}` : ''}`, part);
    const taken = answer as ImportAnswer;
    total.layout = taken.layout;
    for (const [k, v] of Object.entries(taken.result)) total.result[k] = (total.result[k] ?? 0) + v;
    if (status !== 202 || !taken.next) return total;
    from = taken.next.from;
  }
}

/** The file's lines up to its header row (repeated at the start of every part). */
async function headerLines(file: string): Promise<number> {
  let index = 0;
  let widest = { index: 0, fields: 0 };
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  for await (const line of lines) {
    for await (const record of readCsv([line])) {
      if (detectLayout(record.fields)) {
        lines.close();
        return index + 1;
      }
      if (record.fields.length > widest.fields) widest = { index, fields: record.fields.length };
    }
    if (++index >= MAX_PREAMBLE_LINES) break;
  }
  lines.close();
  return widest.index + 1;
}

/** The file in parts of at most the request limit, cut at line ends (quoted line breaks never cut: whole lines only). */
async function* parts(file: string): AsyncGenerator<string> {
  const head = await headerLines(file);
  const lines = createInterface({ input: createReadStream(file, 'utf8'), crlfDelay: Infinity });
  const header: string[] = [];
  let part: string[] = [];
  let size = 0;
  let quotes = 0;
  for await (const line of lines) {
    if (header.length < head) {
      header.push(line);
      continue;
    }
    // A line inside a quoted field (an odd count of quotes so far) stays with its record.
    quotes += (line.match(/"/g) ?? []).length;
    const bytes = Buffer.byteLength(line) + 1;
    const headerBytes = Buffer.byteLength(header.join('\n')) + 1;
    if (
      part.length &&
      quotes % 2 === (line.match(/"/g) ?? []).length % 2 &&
      size + bytes + headerBytes > MAX_STATEMENT_BYTES
    ) {
      yield [...header, ...part].join('\n');
      part = [];
      size = 0;
    }
    part.push(line);
    size += bytes;
  }
  if (part.length || header.length) yield [...header, ...part].join('\n');
}

async function importFile(): Promise<void> {
  const file = positionals[1];
  if (!file) fail('Name the file to import');
  const query = (dryRun: boolean) =>
    new URLSearchParams({
      file: basename(file),
      ...(values.template ? { template: values.template } : {}),
      ...(dryRun ? { dryRun: 'true' } : {}),
    });
  const path = `/v1/statements/${accountPath(values.account)}/import`;
  const answers: unknown[] = [];
  // Every part as a dry run first: a bad line anywhere and nothing is imported.
  for await (const part of parts(file)) answers.push(await importPart(path, query(true), part));
  if (!values['dry-run']) {
    answers.length = 0;
    for await (const part of parts(file)) answers.push(await importPart(path, query(false), part));
  }
  const results = answers as { layout: string; result: Record<string, number> }[];
  const total: Record<string, number> = {};
  for (const a of results) for (const [k, v] of Object.entries(a.result)) total[k] = (total[k] ?? 0) + v;
  if (values.json) {
    process.stdout.write(
      `${JSON.stringify({ layout: results[0]?.layout, dryRun: values['dry-run'], parts: results.length, result: total })}\n`,
    );
    return;
  }
  process.stdout.write(
    `${values['dry-run'] ? 'Dry run (nothing changed): would import' : 'Imported'} ${basename(file)} as ${results[0]?.layout} in ${results.length} part(s)\n` +
      Object.entries(total)
        .map(([k, v]) => `  ${k.padEnd(13)} ${v}\n`)
        .join(''),
  );
}

async function day(): Promise<void> {
  const account = accountPath(positionals[1]);
  const date = positionals[2];
  if (!date || !/^\d{4}-\d{2}-\d{2}$/.test(date)) fail('Name the day as YYYY-MM-DD');
  if (values.close) {
    const answer = await call('POST', `/v1/statements/${account}/days/${date}/close`, '', 'application/json');
    process.stdout.write(`${JSON.stringify(answer, null, 2)}\n`);
    return;
  }
  const answer = await call(
    'GET',
    `/v1/statements/${account}/days/${date}${values.csv ? '?format=csv' : ''}`,
  );
  process.stdout.write(typeof answer === 'string' ? answer : `${JSON.stringify(answer, null, 2)}\n`);
}

if (positionals[0] === 'import') {
  await importFile();
} else if (positionals[0] === 'day') {
  await day();
} else fail(`Unknown command ${positionals[0] ?? '(none)'}`);
