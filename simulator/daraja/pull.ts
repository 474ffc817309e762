/**
 * Daraja Pull Transactions API (issue 29), served from the books (simulator/core/books.ts):
 * `POST {prefix}/pulltransactions/v1/register` {ShortCode, RequestType "Pull", NominatedNumber,
 * CallBackURL} → ResponseCode 1000 registered, 1001 already registered; `POST {prefix}/pulltransactions/v1/query`
 * {ShortCode, StartDate, EndDate ("YYYY-MM-DD HH:mm:ss", East Africa Time), OffSetValue} → 1000 with a
 * page of `Response` rows, or 1001 with the empty list `[[]]` when there are none. As on the platform:
 * C2B payments into the short code only, nothing older than 48 h (provider time: scaled by the time
 * scale) is ever answered, and the `pullFailure` books fault answers HTTP 200 with ResponseCode 1001 and
 * no transaction list: the failure that looks like "nothing".
 */
import * as z from 'zod';
import { localTime, maskNumber } from '../core/books';
import { json, type Reply, type RequestContext } from '../core/http';
import { digits } from '../core/ids';
import type { Router } from '../core/router';
import type { DarajaCore } from './core';
import { darajaError, darajaErrors } from './errors';

/** Rows per page (the simulator's; the platform does not publish its own). */
const PULL_PAGE_SIZE = 100;
const WINDOW_MS = 48 * 3600_000;

const ShortCode = z
  .union([z.string(), z.number()])
  .transform(String)
  .pipe(z.string().regex(/^\d{5,9}$/));
const RegisterBody = z.object({
  ShortCode,
  RequestType: z.literal('Pull'),
  NominatedNumber: z
    .union([z.string(), z.number()])
    .transform(String)
    .pipe(z.string().regex(/^\d{9,12}$/)),
  CallBackURL: z.string().url(),
});
const PullDate = z.string().regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
const QueryBody = z.object({
  ShortCode,
  StartDate: PullDate,
  EndDate: PullDate,
  OffSetValue: z
    .union([z.string(), z.number()])
    .transform(String)
    .pipe(z.string().regex(/^\d{1,9}$/)),
});

/** "YYYY-MM-DD HH:mm:ss" in East Africa Time as epoch ms. */
function eatMs(text: string): number {
  return Date.parse(`${text.replace(' ', 'T')}+03:00`);
}

const refId = () => `${digits(5)}-${digits(7)}-1`;

export function registerPull(core: DarajaCore, router: Router, prefixes: readonly string[]): void {
  for (const prefix of prefixes) {
    router.add('daraja', 'POST', `${prefix}/pulltransactions/v1/register`, (ctx) => register(ctx));
    router.add('daraja', 'POST', `${prefix}/pulltransactions/v1/query`, (ctx) => query(ctx));
  }

  function register(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, RegisterBody);
    const already = core.pullRegistrations.has(b.ShortCode);
    core.pullRegistrations.set(b.ShortCode, {
      nominatedNumber: b.NominatedNumber,
      callbackUrl: b.CallBackURL,
    });
    return json(200, {
      ResponseRefID: refId(),
      ResponseStatus: already ? '1001' : '1000',
      ResponseCode: already ? '1001' : '1000',
      ResponseDescription: already ? 'Short Code already Registered' : 'Short Code Registered successfully',
    });
  }

  function query(ctx: RequestContext): Reply {
    core.authenticate(ctx);
    const b = core.body(ctx, QueryBody);
    if (!core.pullRegistrations.has(b.ShortCode)) throw darajaError(400, '400.001', 'Invalid ShortCode');
    if (core.sim.books.takePullFailure())
      return json(200, { ResponseRefID: refId(), ResponseCode: '1001', ResponseMessage: 'Failed' });
    const start = eatMs(b.StartDate);
    const end = eatMs(b.EndDate);
    if (Number.isNaN(start) || Number.isNaN(end) || end < start) throw darajaErrors.invalidField('EndDate');
    // The platform answers nothing older than 48 h: a window reaching further back is cut, silently.
    const oldest = core.sim.scheduler.now() - core.sim.scheduler.scaled(WINDOW_MS);
    const rows = core.sim.books
      .served('daraja', b.ShortCode)
      .filter((e) => e.pullType && e.time >= Math.max(start, oldest) && e.time <= end + 999);
    const offset = Number(b.OffSetValue);
    const size = core.sim.books.faults.pullPageSize ?? PULL_PAGE_SIZE;
    const page = rows.slice(offset, offset + size);
    if (!page.length)
      return json(200, {
        ResponseRefID: refId(),
        ResponseCode: '1001',
        ResponseMessage: 'No transactions found',
        Response: [[]],
      });
    return json(200, {
      ResponseRefID: refId(),
      ResponseCode: '1000',
      ResponseMessage: 'Success',
      Response: [
        page.map((e) => ({
          transactionId: e.id,
          trxDate: `${localTime(e.time, 0, 'T')}Z`,
          msisdn: maskNumber(e.counterparty),
          sender: 'UAT2',
          transactiontype: e.pullType,
          billreference: e.externalId ?? '',
          amount: String(e.amountIn),
          organizationname: `${b.ShortCode} - Sim Merchant`,
        })),
      ],
    });
  }
}
