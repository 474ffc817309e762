/** C2B: register URLs (with the URL rules) and the simulate call that drives validation and confirmation. */
import * as z from 'zod';
import { effectiveCallbackFaults, FaultHolder } from '../core/faults';
import { json, type Reply, type RequestContext } from '../core/http';
import { darajaTimestamp, digits, receipt } from '../core/ids';
import type { Router } from '../core/router';
import type { DarajaCore } from './core';
import { darajaError } from './errors';
import { digitsOf, Msisdn254, WholeAmount } from './schema';
import { checkRegisteredUrl, UrlRuleError } from './url-rules';

const ShortCode = digitsOf(/^\d{5,7}$/);

const RegisterBody = z.object({
  ShortCode,
  // Sentence case exactly: `completed` or `COMPLETED` are refused by the platform.
  ResponseType: z.enum(['Completed', 'Cancelled']),
  ConfirmationURL: z.unknown(),
  ValidationURL: z.unknown(),
});

const SimulateBody = z.object({
  ShortCode,
  CommandID: z.enum(['CustomerPayBillOnline', 'CustomerBuyGoodsOnline']),
  Amount: WholeAmount,
  Msisdn: Msisdn254,
  BillRefNumber: z.string().max(20).nullish(),
});

interface Registration {
  shortCode: string;
  responseType: 'Completed' | 'Cancelled';
  confirmationUrl: string;
  validationUrl: string;
  registeredAt: string;
}

type ValidationResult = 'accepted' | 'rejected' | 'timeout' | 'error' | 'skipped';

/** What happened to one simulated payment; returned by simulate as the non-standard `SimulatorOutcome`. */
export interface C2bOutcome {
  TransID: string;
  shortCode: string;
  validation: ValidationResult;
  validationResultCode?: string;
  /** True when the validation could not answer in time and the registered ResponseType decided. */
  defaultActionApplied: boolean;
  responseType?: 'Completed' | 'Cancelled';
  completed: boolean;
  confirmation: 'sent' | 'not-sent' | 'dropped';
  confirmationStatus?: number;
  at: string;
}

/** `25470****149`: the platform masks the payer's number in C2B payloads. */
function maskC2bMsisdn(msisdn: string): string {
  return `${msisdn.slice(0, 5)}****${msisdn.slice(-3)}`;
}

export function registerC2b(
  core: DarajaCore,
  router: Router,
  prefixes: string[],
): {
  snapshot(): unknown[];
  reset(): void;
  setExternalValidation(shortCode: string, on: boolean): void;
  registrations(): Registration[];
} {
  const { sim } = core;
  const registrations = new Map<string, Registration>();
  const externalValidation = new Map<string, boolean>();
  const outcomes: C2bOutcome[] = [];

  function register(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, RegisterBody);
    let confirmationUrl: string;
    let validationUrl: string;
    try {
      confirmationUrl = checkRegisteredUrl('ConfirmationURL', b.ConfirmationURL);
      validationUrl = checkRegisteredUrl('ValidationURL', b.ValidationURL);
    } catch (e) {
      if (e instanceof UrlRuleError) throw darajaError(400, '400.003.02', e.message);
      throw e;
    }
    // Sandbox behaviour: registering again simply overwrites.
    registrations.set(b.ShortCode, {
      shortCode: b.ShortCode,
      responseType: b.ResponseType,
      confirmationUrl,
      validationUrl,
      registeredAt: new Date(core.now()).toISOString(),
    });
    return json(200, {
      // Sic: the platform's spelling.
      OriginatorCoversationID: `${digits(4)}-${digits(8)}-1`,
      ResponseCode: '0',
      ResponseDescription: 'Success',
    });
  }

  async function simulate(ctx: RequestContext): Promise<Reply> {
    core.authenticate(ctx);
    const b = core.body(ctx, SimulateBody);
    const payBill = b.CommandID === 'CustomerPayBillOnline';
    const transId = receipt(10);
    const payload = {
      TransactionType: payBill ? 'Pay Bill' : 'Buy Goods',
      TransID: transId,
      TransTime: darajaTimestamp(new Date(core.now())),
      TransAmount: String(b.Amount),
      BusinessShortCode: b.ShortCode,
      BillRefNumber: payBill ? (b.BillRefNumber ?? '') : '',
      InvoiceNumber: '',
      OrgAccountBalance: '',
      ThirdPartyTransID: '',
      MSISDN: maskC2bMsisdn(b.Msisdn),
      FirstName: 'John',
      MiddleName: '',
      LastName: 'Doe',
    };
    const outcome: C2bOutcome = {
      TransID: transId,
      shortCode: b.ShortCode,
      validation: 'skipped',
      defaultActionApplied: false,
      completed: true,
      confirmation: 'not-sent',
      at: new Date(core.now()).toISOString(),
    };
    outcomes.push(outcome);
    const reg = registrations.get(b.ShortCode);
    const faults = effectiveCallbackFaults(sim.faults, 'daraja', new FaultHolder(ctx.faults));
    const foreign = faults.foreignIp
      ? faults.foreignIp === true
        ? sim.opts.foreignSourceIp
        : faults.foreignIp
      : undefined;

    if (reg && (externalValidation.get(b.ShortCode) ?? sim.opts.daraja.c2bExternalValidation)) {
      outcome.responseType = reg.responseType;
      const res = await sim.sender.send(
        {
          provider: 'daraja',
          kind: 'c2b-validation',
          reference: transId,
          url: reg.validationUrl,
          method: 'POST',
          body: JSON.stringify(payload),
          sourceIp: foreign ?? core.sourceIp,
          timeoutMs: sim.opts.daraja.c2bValidationTimeoutMs,
          summary: `${transId} ${payload.TransAmount}`,
        },
        foreign ? ['foreign-ip'] : [],
      );
      const decision = interpretValidation(res.outcome, res.status, res.body);
      outcome.validation = decision.result;
      if (decision.resultCode !== undefined) outcome.validationResultCode = decision.resultCode;
      if (decision.thirdPartyTransId) payload.ThirdPartyTransID = decision.thirdPartyTransId;
      if (decision.result === 'accepted') outcome.completed = true;
      else if (decision.result === 'rejected') outcome.completed = false;
      else {
        outcome.defaultActionApplied = true;
        outcome.completed = reg.responseType === 'Completed';
      }
    }

    if (outcome.completed) {
      const balance = core.adjustBalance(b.ShortCode, b.Amount);
      const now = new Date(core.now());
      core.records.set(transId, {
        type: 'c2b',
        receipt: transId,
        amount: b.Amount,
        shortCode: b.ShortCode,
        debitPartyName: `${payload.MSISDN} - John Doe`,
        creditPartyName: `${b.ShortCode} - Sim Merchant`,
        status: 'Completed',
        reasonType: payBill ? 'Pay Bill' : 'Buy Goods',
        initiatedAt: now,
        finalisedAt: now,
        ...(payload.BillRefNumber ? { billRef: payload.BillRefNumber } : {}),
      });
      if (reg) {
        const confirmation = { ...payload, OrgAccountBalance: balance.toFixed(2) };
        const res = await sim.sender.deliver(
          {
            provider: 'daraja',
            kind: 'c2b-confirmation',
            reference: transId,
            url: reg.confirmationUrl,
            method: 'POST',
            body: JSON.stringify(confirmation),
            sourceIp: core.sourceIp,
            summary: `${transId} ${payload.TransAmount}`,
          },
          faults,
        );
        outcome.confirmation = res ? 'sent' : 'dropped';
        if (res?.status !== undefined) outcome.confirmationStatus = res.status;
      }
    }

    return json(200, {
      OriginatorCoversationID: `${digits(4)}-${digits(8)}-1`,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
      SimulatorOutcome: outcome,
    });
  }

  for (const p of prefixes) {
    for (const v of ['v1', 'v2']) {
      router.add('daraja', 'POST', `${p}/c2b/${v}/registerurl`, register);
      router.add('daraja', 'POST', `${p}/c2b/${v}/simulate`, simulate);
    }
  }

  return {
    snapshot: () => outcomes.map((o) => ({ provider: 'daraja', kind: 'c2b', reference: o.TransID, ...o })),
    reset: () => {
      registrations.clear();
      externalValidation.clear();
      outcomes.length = 0;
    },
    setExternalValidation: (shortCode, on) => externalValidation.set(shortCode, on),
    registrations: () => [...registrations.values()],
  };
}

/**
 * ResultCode "0" (string or number) accepts, any other ResultCode rejects. No answer in time is a
 * timeout; a non-2xx answer or a body without ResultCode means the validation "cannot answer", so
 * the registered default applies as for a timeout.
 */
function interpretValidation(
  outcome: string,
  status: number | undefined,
  body: string | undefined,
): { result: ValidationResult; resultCode?: string; thirdPartyTransId?: string } {
  if (outcome === 'timeout') return { result: 'timeout' };
  if (outcome !== 'delivered' || status === undefined || status < 200 || status >= 300)
    return { result: 'error' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body ?? '');
  } catch {
    return { result: 'error' };
  }
  if (typeof parsed !== 'object' || parsed === null) return { result: 'error' };
  const rec = parsed as Record<string, unknown>;
  const code = rec.ResultCode;
  if (typeof code !== 'string' && typeof code !== 'number') return { result: 'error' };
  const thirdPartyTransId = typeof rec.ThirdPartyTransID === 'string' ? rec.ThirdPartyTransID : undefined;
  const base = { resultCode: String(code), ...(thirdPartyTransId ? { thirdPartyTransId } : {}) };
  return String(code) === '0' ? { result: 'accepted', ...base } : { result: 'rejected', ...base };
}
