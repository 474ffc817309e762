/**
 * Providers send the same field as a JSON number or a string (Daraja's `ResultCode` 0 or "0", `Amount` 1 or
 * "1.00", MoMo's `amount` "100" or 100, a PhoneNumber 254708374149 or "254708374149"). Every fixture of
 * every provider, replayed through its route's parse with each number written as a string and each numeric
 * string written as a number, must say the same thing: status, reason, amount (exact decimal), receipt and
 * party. Only the verbatim attributes may differ.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { airtelProvider } from '../../../shared/providers/airtel';
import { darajaProvider } from '../../../shared/providers/daraja';
import { darajaAccountSchema } from '../../../shared/providers/daraja/schema';
import { momoProvider } from '../../../shared/providers/momo';
import type { ParsedCallback, ProviderModule } from '../../../shared/providers/types';

const FIXTURES = new URL('../../fixtures/', import.meta.url);

/** A number written as text, and text that is a plain decimal written as a number (no leading zeros lost). */
const asStrings = (v: unknown): unknown => transform(v, (x) => (typeof x === 'number' ? String(x) : x));
const asNumbers = (v: unknown): unknown =>
  transform(v, (x) => (typeof x === 'string' && /^-?(0|[1-9]\d{0,14})(\.\d+)?$/.test(x) ? Number(x) : x));

function transform(v: unknown, leaf: (x: unknown) => unknown): unknown {
  if (Array.isArray(v)) return v.map((x) => transform(x, leaf));
  if (v !== null && typeof v === 'object')
    return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, transform(x, leaf)]));
  return leaf(v);
}

/** What a parse says, without the verbatim attributes; a refusal is its error's name and message. */
function verdict(parse: () => ParsedCallback): unknown {
  try {
    const parsed = parse();
    if (parsed.type === 'decision') return { decision: parsed.useCase };
    const reports = parsed.reports.map(({ draft }) => ({
      key: draft.key,
      status: draft.status,
      reason: draft.reason,
      amount: draft.amount,
      providerTransactionId: draft.providerTransactionId,
      externalId: draft.externalId,
      party: draft.party,
    }));
    // A notice without ids is identified by its bytes' digest (one delivery, one fact): not an outcome.
    const facts = (parsed.facts ?? []).map((fact) => ({
      ...fact,
      id: fact.id.startsWith('echo-') ? 'echo-(digest)' : fact.id,
      data: undefined,
      keep: undefined,
    }));
    return { reports, facts };
  } catch (error) {
    return { refused: `${(error as Error).name}: ${(error as Error).message}` };
  }
}

interface Case {
  name: string;
  body: Record<string, unknown>;
  run: (body: Record<string, unknown>) => ParsedCallback;
}

function routeParse<S>(provider: ProviderModule<S>, settings: S, route: string, params = {}) {
  return (body: Record<string, unknown>) =>
    provider.routes
      .find((r) => r.name === route)!
      .parse({
        account: { provider: provider.id, id: 'demo', pathSecret: undefined, settings },
        route,
        params,
        body,
        rawBody: Buffer.from(JSON.stringify(body)),
        headers: {},
        sourceIp: '196.201.214.200',
      });
}

const json = (path: string) => JSON.parse(readFileSync(new URL(path, FIXTURES), 'utf8')) as unknown;
const jsonFiles = (dir: string) =>
  readdirSync(new URL(dir, FIXTURES))
    .filter((f) => f.endsWith('.json'))
    .map((f) => `${dir}${f}`);

/** Daraja fixtures by their file name's route (the C2B samples are validation and confirmation bodies). */
const DARAJA_ROUTES: [RegExp, string][] = [
  [/stk/, 'stk'],
  [/c2b-validation|c2b-payment/, 'c2b-validation'],
  [/c2b/, 'c2b-confirmation'],
  [/b2c-timeout/, 'b2c-timeout'],
  [/b2c/, 'b2c-result'],
  [/b2b/, 'b2b-result'],
  [/status-result/, 'status-result'],
  [/balance-timeout/, 'balance-timeout'],
  [/balance/, 'balance-result'],
  [/reversal-timeout/, 'reversal-timeout'],
  [/reversal/, 'reversal-result'],
];

function darajaCases(): Case[] {
  const settings = darajaAccountSchema.parse({ shortCode: '600638' });
  return ['daraja/', 'daraja/documented/', 'daraja/integrators/'].flatMap(jsonFiles).flatMap((path) => {
    const route = DARAJA_ROUTES.find(([pattern]) => pattern.test(path))?.[1];
    const body = json(path);
    return route && !Array.isArray(body)
      ? [
          {
            name: path,
            body: body as Record<string, unknown>,
            run: routeParse(darajaProvider, settings, route),
          },
        ]
      : [];
  });
}

function momoCases(): Case[] {
  const settings = momoProvider.accountSchema.parse({ targetEnvironment: 'mtnuganda', currency: 'UGX' });
  const callback = (kind: string) =>
    routeParse(momoProvider, settings, 'callback', {
      kind,
      referenceId: '3c1d6a0e-8f4b-4b7a-9e2d-5a6b7c8d9e0f',
    });
  const single = ['momo/', 'momo/integrators/'].flatMap(jsonFiles).filter((p) => !p.includes('momo-rs'));
  const many = Object.entries(json('momo/momo-rs-manual-callbacks.json') as Record<string, unknown>);
  return [
    ...single.map((path) => ({
      name: path,
      body: json(path) as Record<string, unknown>,
      run: callback(/\/([a-z]+)-[^/]*$/.exec(path)![1]!),
    })),
    ...many.map(([name, body]) => ({
      name: `momo-rs ${name}`,
      body: body as Record<string, unknown>,
      run: callback(name.split('-')[0]!),
    })),
  ];
}

function airtelCases(): Case[] {
  const settings = airtelProvider.accountSchema.parse({ hashMode: 'off', country: 'UG', currency: 'UGX' });
  return ['airtel/callback-ts.json', 'airtel/callback-tf.json'].map((path) => ({
    name: path,
    body: json(path) as Record<string, unknown>,
    run: routeParse(airtelProvider, settings, 'callback'),
  }));
}

describe('a number or a string says the same', () => {
  const cases = [...darajaCases(), ...momoCases(), ...airtelCases()];

  it('replays every fixture of the three providers', () => {
    expect(cases.filter((c) => c.name.startsWith('daraja/')).length).toBeGreaterThan(25);
    expect(cases.filter((c) => c.name.includes('momo')).length).toBeGreaterThan(10);
  });

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const original = verdict(() => c.run(c.body));
    expect(original).not.toHaveProperty('refused');
    expect(verdict(() => c.run(asStrings(c.body) as Record<string, unknown>))).toEqual(original);
    expect(verdict(() => c.run(asNumbers(c.body) as Record<string, unknown>))).toEqual(original);
  });
});
