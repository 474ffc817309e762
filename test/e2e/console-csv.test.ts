/**
 * CSV exports of the console's lists (issue 30 item 8) over HTTP on the local relay and DynamoDB Local:
 * the list's filters applied, phone numbers masked, spreadsheet formulas defused, the export audited
 * with who took it.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestRelay, type TestRelay } from '../helpers/relay';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay({
    accounts: { momo: { demo: { currency: 'EUR' } }, daraja: { demo: { currency: 'KES' } } },
  });
});
afterAll(async () => {
  await relay?.stop();
});

describe('console CSV exports', () => {
  it('exports the filtered transaction list with masked numbers and defused formulas, and audits the export', async () => {
    // Prepare: two MoMo payments (one with a formula for an externalId), one Daraja payment.
    const formula = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: randomUUID(),
      amount: '10',
      currency: 'EUR',
      msisdn: '256772123456',
      externalId: '=HYPERLINK("http://evil.example","x")',
    });
    expect(formula.status).toBe(201);
    await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: randomUUID(),
      amount: '20',
      currency: 'EUR',
    });
    await relay.admin('POST', '/v1/transactions', {
      provider: 'daraja',
      account: 'demo',
      kind: 'stk',
      reference: `ws_CO_${Date.now()}`,
      amount: '500',
      currency: 'KES',
    });
    // Act
    const answer = await relay.admin('GET', '/v1/transactions?format=csv&provider=momo');
    // Assess
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toContain('text/csv');
    expect(answer.headers.get('x-export-complete')).toBe('true');
    const lines = (answer.body as string).trimEnd().split('\r\n');
    expect(lines[0]).toMatch(/^createdAt,updatedAt,provider,account,kind,reference,status/);
    expect(lines).toHaveLength(3);
    expect(lines.slice(1).every((l) => l.includes(',momo,demo,'))).toBe(true);
    expect(answer.body).not.toContain('256772123456');
    expect(answer.body).toContain(`"'=HYPERLINK(""http://evil.example"",""x"")"`);
    const audit = await relay.admin('GET', '/v1/audit?action=transactions.export');
    expect(audit.body.entries[0]).toMatchObject({ action: 'transactions.export', outcome: 'ok' });
    expect(audit.body.entries[0].actor.name).toBeTruthy();
  });

  it('exports the quarantine and the report as CSV, and refuses a format it does not know with 400', async () => {
    const quarantine = await relay.admin('GET', '/v1/quarantine?format=csv');
    const report = await relay.admin('GET', '/v1/report?format=csv');
    const unknown = await relay.admin('GET', '/v1/transactions?format=xml');
    expect(quarantine.status).toBe(200);
    expect((quarantine.body as string).split('\r\n')[0]).toBe(
      'receivedAt,provider,account,route,method,path,sourceIp,httpStatus,reason,message',
    );
    expect(report.status).toBe(200);
    expect(report.body).toMatch(
      /^section,provider,account,reference,kind,status,amount,createdAt,detail\r\ntotal,/,
    );
    expect(unknown.status).toBe(400);
  });
});
