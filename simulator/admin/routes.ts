/**
 * The simulator's own API under `/_sim/`: faults, runtime config, the callback log, transactions, reset.
 * Not part of any provider; tests and the relay's reliability suites drive the simulator through it.
 */
import * as z from 'zod';
import { AIRTEL_HASH_RECIPES } from '../airtel/hash';
import type { CallbackSender } from '../core/callbacks';
import type { SimContext } from '../core/context';
import { FaultSpecError } from '../core/faults';
import { json, type ProviderName, type Reply, type RequestContext, SimHttpError } from '../core/http';
import { STATEMENT_LAYOUTS, statementFile } from '../core/statements';
import type { Router } from '../core/router';
import type { DarajaState } from '../daraja';

const adminError = (status: number, message: string) =>
  new SimHttpError(status, { error: 'SIM_BAD_REQUEST', message });

/**
 * How long `/_sim/never-answers` holds a request before giving up with a 504: far beyond any deadline a
 * caller of a decision endpoint has (Daraja's C2B validation waits 8 s), short enough not to pile up.
 */
const NEVER_ANSWERS_HOLD_MS = 30_000;

const ConfigPatch = z
  .object({
    approvalDelayMs: z.number().int().min(0).optional(),
    momo: z
      .object({
        sandboxMsisdnBase: z
          .string()
          .regex(/^\d{5,15}$/)
          .optional(),
      })
      .strict()
      .optional(),
    airtel: z
      .object({
        clientId: z.string().optional(),
        callbackUrl: z.string().url().nullable().optional(),
        callbackAuth: z.boolean().optional(),
        callbackKey: z.string().min(1).optional(),
        hashRecipe: z.enum(AIRTEL_HASH_RECIPES).optional(),
        messageSigning: z.boolean().optional(),
      })
      .strict()
      .optional(),
    daraja: z
      .object({
        c2bExternalValidation: z.boolean().optional(),
        c2bValidationTimeoutMs: z.number().int().min(1).optional(),
        queueTimeoutShape: z.enum(['echo', 'result']).optional(),
        queueTimeoutLateResultMs: z.number().int().min(0).nullable().optional(),
        queueTimeoutAfterMs: z.number().int().min(0).optional(),
        // null turns a limiter rule off again (its start-up default).
        quotaPerSecond: z.number().positive().nullable().optional(),
        spikeArrestPerSecond: z.number().positive().nullable().optional(),
        throttleHttpStatus: z.number().int().min(400).max(599).optional(),
      })
      .strict()
      .optional(),
  })
  .strict();

const Budget = z.union([z.literal(true), z.number().int().min(1)]);
const BooksFaultsBody = z
  .object({
    missingEvery: z.number().int().min(1).optional(),
    duplicateEvery: z.number().int().min(1).optional(),
    lateEvery: z.number().int().min(1).optional(),
    feePercent: z.number().positive().max(50).optional(),
    pullFailure: Budget.optional(),
    pullPageSize: z.number().int().min(1).max(1000).optional(),
  })
  .strict();

function providerParam(value: string | undefined): ProviderName {
  if (value === 'momo' || value === 'airtel' || value === 'daraja') return value;
  throw adminError(400, 'provider must be momo, airtel or daraja');
}

export interface AdminDeps {
  sim: SimContext;
  sender: CallbackSender;
  info: () => unknown;
  transactions: (provider?: string) => unknown[];
  reset: () => void;
  daraja: DarajaState;
  airtelPublicKeyPem: string;
}

function body(ctx: RequestContext): unknown {
  return ctx.json((reason) => adminError(400, reason));
}

export function registerAdmin(router: Router, deps: AdminDeps): void {
  const { sim } = deps;
  const add = (method: string, path: string, handler: (ctx: RequestContext) => Reply | Promise<Reply>) =>
    router.add('admin', method, `/_sim${path}`, handler);

  add('GET', '/health', () => json(200, { ok: true }));
  add('GET', '/info', () => json(200, deps.info()));

  add('GET', '/faults', () => json(200, sim.faults.snapshot()));
  add('PUT', '/faults', (ctx) => {
    const input = body(ctx);
    if (typeof input !== 'object' || input === null || Array.isArray(input)) {
      throw adminError(
        400,
        'expected {"all"?: string, "momo"?: string, "airtel"?: string, "daraja"?: string}',
      );
    }
    try {
      sim.faults.replace(input as Record<string, string>);
    } catch (e) {
      if (e instanceof FaultSpecError) throw adminError(400, e.message);
      throw e;
    }
    return json(200, sim.faults.snapshot());
  });
  add('DELETE', '/faults', () => {
    sim.faults.replace({});
    return json(200, sim.faults.snapshot());
  });

  // The books (simulator/core/books.ts): what each provider moved, the faults on what it serves, statements.
  add('GET', '/books/faults', () => json(200, sim.books.faults));
  add('PUT', '/books/faults', (ctx) => {
    const parsed = BooksFaultsBody.safeParse(body(ctx));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw adminError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message}`);
    }
    sim.books.setFaults(parsed.data);
    return json(200, sim.books.faults);
  });
  add('DELETE', '/books/faults', () => {
    sim.books.setFaults({});
    return json(200, sim.books.faults);
  });
  add('GET', '/books/:provider/:account', (ctx) => {
    const provider = providerParam(ctx.params.provider);
    const account = ctx.params.account ?? '';
    return json(200, {
      entries: sim.books.all(provider, account),
      served: sim.books.served(provider, account, ctx.query.get('subAccount') ?? undefined),
      faults: sim.books.faults,
    });
  });
  add('GET', '/statements/:provider/:account', (ctx) => {
    const provider = providerParam(ctx.params.provider);
    const layouts: readonly string[] = STATEMENT_LAYOUTS[provider];
    const layout = ctx.query.get('layout') ?? layouts[0]!;
    if (!layouts.includes(layout))
      throw adminError(400, `layout must be one of ${layouts.join(', ')} for ${provider}`);
    const time = (name: string, fallback: number) => {
      const raw = ctx.query.get(name);
      if (raw === null) return fallback;
      const ms = Date.parse(raw);
      if (Number.isNaN(ms)) throw adminError(400, `${name} must be an ISO 8601 time`);
      return ms;
    };
    const now = sim.scheduler.now();
    const file = statementFile(sim.books, {
      provider,
      account: ctx.params.account ?? '',
      layout,
      from: time('from', 0),
      to: time('to', now + 86_400_000),
      now,
      ...(ctx.query.get('subAccount') ? { subAccount: ctx.query.get('subAccount')! } : {}),
    });
    return {
      status: 200,
      raw: file.text,
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': `attachment; filename="${file.filename}"`,
      },
    };
  });

  add('GET', '/config', () => json(200, configView(sim)));
  add('PATCH', '/config', (ctx) => {
    const parsed = ConfigPatch.safeParse(body(ctx));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw adminError(400, `${issue?.path.join('.') || 'body'}: ${issue?.message}`);
    }
    applyConfig(sim, parsed.data);
    return json(200, configView(sim));
  });

  add('GET', '/callbacks', (ctx) => {
    const q = ctx.query;
    const list = deps.sender.log.filter(
      (e) =>
        (!q.get('provider') || e.provider === q.get('provider')) &&
        (!q.get('kind') || e.kind === q.get('kind')) &&
        (!q.get('reference') || e.reference === q.get('reference')),
    );
    return json(200, list);
  });
  add('DELETE', '/callbacks', () => {
    deps.sender.clearLog();
    return { status: 204 };
  });

  add('GET', '/transactions', (ctx) => json(200, deps.transactions(ctx.query.get('provider') ?? undefined)));
  add('POST', '/reset', () => {
    deps.reset();
    return json(200, { ok: true });
  });

  add('PUT', '/daraja/c2b/:shortCode', (ctx) => {
    const parsed = z.object({ externalValidation: z.boolean() }).safeParse(body(ctx));
    if (!parsed.success) throw adminError(400, 'expected {"externalValidation": boolean}');
    deps.daraja.setExternalValidation(ctx.params.shortCode ?? '', parsed.data.externalValidation);
    return json(200, { shortCode: ctx.params.shortCode, externalValidation: parsed.data.externalValidation });
  });
  add('GET', '/daraja/c2b', () => json(200, deps.daraja.registrations()));
  // A partner decision endpoint that accepts the request and never answers in time (e.g. the relay's C2B
  // validation partner, to see its deadline default apply). Released with a 504 after NEVER_ANSWERS_HOLD_MS.
  add('POST', '/never-answers', () => {
    sim.logger.line('POST /_sim/never-answers: holding the request without answering');
    return new Promise<Reply>((resolve) => {
      const timer = setTimeout(
        () => resolve(json(504, { error: 'SIM_NEVER_ANSWERS', message: 'held without an answer' })),
        NEVER_ANSWERS_HOLD_MS,
      );
      // A held request must not keep a process alive that is otherwise done.
      timer.unref();
    });
  });
  add('GET', '/airtel/public-key', () => ({
    status: 200,
    raw: deps.airtelPublicKeyPem,
    headers: { 'content-type': 'application/x-pem-file' },
  }));
}

function configView(sim: SimContext) {
  const o = sim.opts;
  return {
    timeScale: o.timeScale,
    approvalDelayMs: o.approvalDelayMs,
    momo: { sandboxMsisdnBase: o.momo.sandboxMsisdnBase, approvalWindowMs: o.momo.approvalWindowMs },
    airtel: {
      apps: o.airtel.apps.map(({ clientSecret: _secret, ...rest }) => rest),
      ambiguousResolveMs: o.airtel.ambiguousResolveMs,
    },
    daraja: {
      c2bExternalValidation: o.daraja.c2bExternalValidation,
      c2bValidationTimeoutMs: o.daraja.c2bValidationTimeoutMs,
      queueTimeoutShape: o.daraja.queueTimeoutShape,
      queueTimeoutLateResultMs: o.daraja.queueTimeoutLateResultMs ?? null,
      queueTimeoutAfterMs: o.daraja.queueTimeoutAfterMs,
      quotaPerSecond: o.daraja.quotaPerSecond ?? null,
      spikeArrestPerSecond: o.daraja.spikeArrestPerSecond ?? null,
      throttleHttpStatus: o.daraja.throttleHttpStatus,
    },
  };
}

function applyConfig(sim: SimContext, patch: z.infer<typeof ConfigPatch>): void {
  const o = sim.opts;
  if (patch.approvalDelayMs !== undefined) o.approvalDelayMs = patch.approvalDelayMs;
  if (patch.momo?.sandboxMsisdnBase) o.momo.sandboxMsisdnBase = patch.momo.sandboxMsisdnBase;
  if (patch.airtel) {
    const { clientId, ...rest } = patch.airtel;
    const app = clientId ? o.airtel.apps.find((a) => a.clientId === clientId) : o.airtel.apps[0];
    if (!app) throw adminError(404, `no Airtel app with client id "${clientId}"`);
    if (rest.callbackUrl !== undefined) app.callbackUrl = rest.callbackUrl ?? undefined;
    if (rest.callbackAuth !== undefined) app.callbackAuth = rest.callbackAuth;
    if (rest.callbackKey !== undefined) app.callbackKey = rest.callbackKey;
    if (rest.hashRecipe !== undefined) app.hashRecipe = rest.hashRecipe;
    if (rest.messageSigning !== undefined) app.messageSigning = rest.messageSigning;
  }
  if (patch.daraja) {
    const d = patch.daraja;
    if (d.c2bExternalValidation !== undefined) o.daraja.c2bExternalValidation = d.c2bExternalValidation;
    if (d.c2bValidationTimeoutMs !== undefined) o.daraja.c2bValidationTimeoutMs = d.c2bValidationTimeoutMs;
    if (d.queueTimeoutShape !== undefined) o.daraja.queueTimeoutShape = d.queueTimeoutShape;
    if (d.queueTimeoutLateResultMs !== undefined)
      o.daraja.queueTimeoutLateResultMs = d.queueTimeoutLateResultMs ?? undefined;
    if (d.queueTimeoutAfterMs !== undefined) o.daraja.queueTimeoutAfterMs = d.queueTimeoutAfterMs;
    // The gateway reads these on every call (DarajaCore.admit), so the next call is judged by the new limits.
    if (d.quotaPerSecond !== undefined) o.daraja.quotaPerSecond = d.quotaPerSecond ?? undefined;
    if (d.spikeArrestPerSecond !== undefined)
      o.daraja.spikeArrestPerSecond = d.spikeArrestPerSecond ?? undefined;
    if (d.throttleHttpStatus !== undefined) o.daraja.throttleHttpStatus = d.throttleHttpStatus;
  }
}
