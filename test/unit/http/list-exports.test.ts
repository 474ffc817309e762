/**
 * Issue 30 item 8 through the management router (the one the Lambda and `npm start` run), on the memory
 * store: the lists that had no CSV (the four-eyes approvals, callback health) export with the view's
 * filters, numbers masked and formulas defused, bounded with a completeness header, and each export is
 * an audited action naming who took it. Viewers export what they may read, as the other lists.
 */
import { describe, expect, it } from 'vitest';
import { managementWorld } from './management-world';

/** momo/demo and momo/other: a second account for the filters to leave out. */
const world = () => managementWorld({ other: { pathSecret: 'momo-path-secret-4567' } });

const csvLines = (body: unknown) => String(body).trimEnd().split('\r\n');

describe('CSV exports of the approvals and callback health lists', () => {
  it('exports the approvals in the state filtered, with both names, masked numbers and defused formulas, audited with who took it', async () => {
    // Prepare: two resolutions above the 500 limit wait; the admin rejects one with a note that starts
    // with a formula sign and names a phone number.
    const w = world();
    await w.expired('aaaaaaaa-4b7d-4e2a-9c3b-1a2b3c4d5e6f', '600');
    await w.expired('bbbbbbbb-4b7d-4e2a-9c3b-1a2b3c4d5e6f', '700');
    const first = await w.call(
      'ana',
      'POST',
      '/v1/transactions/momo/demo/aaaaaaaa-4b7d-4e2a-9c3b-1a2b3c4d5e6f/resolve',
      {
        status: 'FAILED',
        note: 'ticket 1',
      },
    );
    await w.call('ana', 'POST', '/v1/transactions/momo/demo/bbbbbbbb-4b7d-4e2a-9c3b-1a2b3c4d5e6f/resolve', {
      status: 'FAILED',
      note: 'ticket 2',
    });
    expect(first.status).toBe(202);
    const rejected = await w.call('bo', 'POST', `/v1/approvals/${first.body.approval.id}/reject`, {
      note: '-1+1 payer 256772123456 says paid',
    });
    expect(rejected.status).toBe(200);

    // Act: a viewer exports the pending ones, then the rejected ones.
    const pending = await w.call('vic', 'GET', '/v1/approvals?format=csv&state=pending');
    const refusedOnes = await w.call('vic', 'GET', '/v1/approvals?format=csv&state=rejected');
    const unknown = await w.call('vic', 'GET', '/v1/approvals?format=xml');

    // Assess
    expect(pending.status).toBe(200);
    expect(pending.headers['content-type']).toContain('text/csv');
    expect(pending.headers['content-disposition']).toContain('relay-approvals.csv');
    expect(pending.headers['x-export-complete']).toBe('true');
    const [header, ...rows] = csvLines(pending.body);
    expect(header).toMatch(/^createdAt,expiresAt,state,provider,account,reference,status,amount/);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(',pending,momo,demo,bbbbbbbb-4b7d-4e2a-9c3b-1a2b3c4d5e6f,FAILED,700,');
    expect(rows[0]).toContain(',ana,operator,');
    const rejectedRows = csvLines(refusedOnes.body).slice(1);
    expect(rejectedRows).toHaveLength(1);
    expect(rejectedRows[0]).toContain(',bo,admin,');
    expect(refusedOnes.body).not.toContain('256772123456');
    expect(rejectedRows[0]).toContain(",'-1+1 payer 2567*****456 says paid,");
    expect(unknown.status).toBe(400);
    const exports = w.store.audit.filter((e) => e.action === 'approvals.export');
    expect(exports.map((e) => [e.actor?.name, e.outcome, e.detail])).toEqual([
      ['vic', 'ok', '1 rows'],
      ['vic', 'ok', '1 rows'],
    ]);
  });

  it('masks phone numbers in both notes of an approval request in the JSON answers too', async () => {
    // Prepare: a resolution above the limit whose note names a phone number waits; the admin rejects it
    // with a note that names another.
    const w = world();
    await w.expired('cccccccc-4b7d-4e2a-9c3b-1a2b3c4d5e6f', '600');
    const asked = await w.call(
      'ana',
      'POST',
      '/v1/transactions/momo/demo/cccccccc-4b7d-4e2a-9c3b-1a2b3c4d5e6f/resolve',
      {
        status: 'FAILED',
        note: 'payer 256772123456 called',
      },
    );

    // Act
    const rejected = await w.call('bo', 'POST', `/v1/approvals/${asked.body.approval.id}/reject`, {
      note: 'payer 256772654321 says paid',
    });
    const listed = await w.call('vic', 'GET', '/v1/approvals');

    // Assess
    for (const answer of [asked, rejected, listed]) {
      expect(JSON.stringify(answer.body)).not.toMatch(/256772123456|256772654321/);
    }
    expect(listed.body.approvals[0]).toMatchObject({
      note: 'payer 2567*****456 called',
      decisionNote: 'payer 2567*****321 says paid',
    });
  });

  it('exports callback health for the account filtered, one column per hour, audited', async () => {
    // Prepare: a payment on momo/demo this hour; momo/other has none.
    const w = world();
    await w.call('ana', 'POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: 'cccccccc-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
      amount: '5',
      currency: 'EUR',
    });

    // Act
    const all = await w.call('vic', 'GET', '/v1/callback-health?format=csv');
    const demo = await w.call('vic', 'GET', '/v1/callback-health?format=csv&account=demo');
    const json = await w.call('vic', 'GET', '/v1/callback-health?account=other');

    // Assess
    expect(
      csvLines(all.body)
        .slice(1)
        .map((l) => l.split(',').slice(0, 2).join('/')),
    ).toEqual(['momo/demo', 'momo/other']);
    const [header, ...rows] = csvLines(demo.body);
    const columns = header!.split(',');
    expect(columns.slice(0, 7)).toEqual([
      'provider',
      'account',
      'lastCallbackAt',
      'silenceSeconds',
      'silent',
      'silentSince',
      'transactions24h',
    ]);
    expect(columns.slice(7)).toHaveLength(24);
    expect(columns.at(-1)).toBe('2026-11-23T10:00:00.000Z');
    expect(rows).toHaveLength(1);
    const cells = rows[0]!.split(',');
    expect(cells.slice(0, 2)).toEqual(['momo', 'demo']);
    expect(cells[6]).toBe('1');
    expect(cells.at(-1)).toBe('1');
    expect(demo.headers['x-export-rows']).toBe('1');
    expect(json.body.accounts.map((a: { account: string }) => a.account)).toEqual(['other']);
    expect(
      w.store.audit.filter((e) => e.action === 'callback-health.export').map((e) => e.actor?.name),
    ).toEqual(['vic', 'vic']);
  });

  it('exports the search matches and the badge feed, each audited under its own action', async () => {
    // Prepare
    const w = world();
    const reference = 'dddddddd-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
    await w.call('ana', 'POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference,
      amount: '5',
      currency: 'EUR',
      msisdn: '256772123456',
    });
    // Act
    const search = await w.call('vic', 'GET', `/v1/transactions/search?q=${reference}&format=csv`);
    const badges = await w.call('vic', 'GET', '/v1/badges?format=csv');
    // Assess
    const rows = csvLines(search.body).slice(1);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toContain(`,momo,demo,requesttopay,${reference},`);
    expect(search.body).not.toContain('256772123456');
    expect(csvLines(badges.body)).toEqual(['shop,id,rev,deleted,activated,expired,badge']);
    expect(w.store.audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['transactions.search.export', 'badges.export']),
    );
  });

  it('exports the audit log through the same answer: rows counted, completeness said', async () => {
    // Prepare
    const w = world();
    await w.call('vic', 'GET', '/v1/approvals?format=csv');
    // Act
    const audit = await w.call('bo', 'GET', '/v1/audit?format=csv&action=approvals.export');
    // Assess
    expect(audit.headers['x-export-rows']).toBe('1');
    expect(audit.headers['x-export-complete']).toBe('true');
    expect(csvLines(audit.body)[1]).toContain(',vic,vic,viewer,token,approvals.export,');
  });

  it("exports each list of a transaction's story (timeline, evidence, refused callbacks), bounded, masked and audited", async () => {
    // Prepare: a payment the poller expired, then resolved by ana with a note naming a phone number.
    const w = world();
    const reference = 'eeeeeeee-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
    const path = `/v1/transactions/momo/demo/${reference}`;
    await w.expired(reference, '100');
    const resolved = await w.call('ana', 'POST', `${path}/resolve`, {
      status: 'FAILED',
      note: '-1+1 payer 256772123456 never paid',
    });
    expect(resolved.status).toBe(200);

    // Act
    const timeline = await w.call('vic', 'GET', `${path}?format=csv&list=timeline`);
    const evidence = await w.call('vic', 'GET', `${path}?format=csv&list=evidence`);
    const refused = await w.call('vic', 'GET', `${path}?format=csv&list=refused`);
    const noList = await w.call('vic', 'GET', `${path}?format=csv`);
    const story = await w.call('vic', 'GET', path);

    // Assess: the timeline as the story tells it, one row per entry (the run of checks as one), the
    // person who resolved it named, the number masked.
    const [header, ...rows] = csvLines(timeline.body);
    expect(header).toBe('at,until,type,count,what,said,receiptId,eventId');
    expect(rows).toHaveLength(story.body.story.timeline.length);
    expect(rows[0]).toMatch(/^2026-11-23T10:00:00\.000Z,,registered,/);
    expect(rows.some((r) => r.includes(',status-checks,'))).toBe(true);
    expect(rows.some((r) => /,transition,.*ana \(operator\)/.test(r))).toBe(true);
    expect(timeline.headers).toMatchObject({
      'content-type': 'text/csv; charset=utf-8',
      'content-disposition': `attachment; filename="relay-story-momo-demo-${reference}-timeline.csv"`,
      'x-export-rows': String(rows.length),
      'x-export-complete': 'true',
    });
    const evidenceRows = csvLines(evidence.body).slice(1);
    expect(evidenceRows).toHaveLength(story.body.evidence.length);
    expect(evidenceRows.at(-1)).toContain(',ana,,');
    expect(evidence.body).toContain('resolved by hand: -1+1 payer 2567*****456 never paid');
    for (const answer of [timeline, evidence]) expect(String(answer.body)).not.toContain('256772123456');
    expect(csvLines(refused.body)).toEqual(['receivedAt,errorCode,httpStatus,quarantineId']);
    expect(noList.status).toBe(400);
    expect(noList.body.error.message).toContain('timeline, evidence, deliveries, refused');
    expect(
      w.store.audit
        .filter((e) => e.action === 'transaction.story.export')
        .map((e) => [e.actor?.name, e.detail]),
    ).toEqual([
      ['vic', `${rows.length} rows`],
      ['vic', `${evidenceRows.length} rows`],
      ['vic', '0 rows'],
    ]);
  });
});
