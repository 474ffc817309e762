/**
 * Issue 30 item 8 in a real Chromium on the real local relay (DynamoDB Local): the lists that had no
 * export — the four-eyes approvals, callback health — save a CSV of the rows the view shows with its
 * filters applied, and say how many rows they saved; the audit log's export (now the same button) keeps
 * its filters and names who exported what.
 */
import { describe, expect, it } from 'vitest';
import { expiredPayment, exported, TEAM, useConsoleOnRelay } from './harness';

const t = useConsoleOnRelay(
  () => ({
    management: { resolveLimits: { 'momo/open': '500' } },
    accounts: { momo: { open: { currency: 'EUR' }, quiet: { currency: 'EUR' } } },
  }),
  TEAM,
);

describe('CSV exports of every list in the console', () => {
  it('exports the approvals in the state filtered: a viewer saves the pending request only', async () => {
    // Prepare: two resolutions above the limit wait; the admin rejects one.
    const kept = await expiredPayment(t, '600');
    const dropped = await expiredPayment(t, '700');
    const asked = async (reference: string) =>
      t.relay.request(
        'POST',
        `/v1/transactions/momo/open/${reference}/resolve`,
        { status: 'FAILED', note: `ticket for ${reference}` },
        t.as('ana'),
      );
    const keptAsk = await asked(kept);
    const droppedAsk = await asked(dropped);
    expect([keptAsk.status, droppedAsk.status]).toEqual([202, 202]);
    const rejected = await t.relay.request(
      'POST',
      `/v1/approvals/${droppedAsk.body.approval.id}/reject`,
      { note: 'no' },
      t.as('bo'),
    );
    expect(rejected.status).toBe(200);
    const vic = await t.signedIn('vic');

    // Act: the list filtered to pending, as a viewer, then its export.
    await vic.goto(`${t.relay.url}/console/#/approvals`);
    await vic.getByLabel('state').selectOption('pending');
    await vic.getByTestId('approval-filters').getByRole('button', { name: 'Filter' }).click();
    await vic.waitForURL(/state=pending/);
    await vic.getByTestId('approval-row').first().waitFor();
    const file = await exported(vic, 'approvals-csv');
    await vic.getByTestId('approvals-csv-said').getByText('rows saved').waitFor();
    const rows = file.lines.slice(1);
    // The list refreshes itself (live): read it once it shows as many rows as were saved, not mid-render.
    await expect
      .poll(async () => (await vic.getByTestId('approval-row').allInnerTexts()).length)
      .toBe(rows.length);
    const shown = await vic.getByTestId('approval-row').allInnerTexts();

    // Assess: the rows shown are the rows saved, each pending; the rejected one is in neither.
    expect(file.name).toBe('relay-approvals.csv');
    expect(rows.some((r) => r.includes(kept))).toBe(true);
    expect(rows.every((r) => r.includes(',pending,'))).toBe(true);
    expect(file.lines.join('\n')).not.toContain(dropped);
    expect(shown.join('\n')).not.toContain(dropped);
    expect(await vic.getByTestId('approvals-csv-said').textContent()).toBe(` ${rows.length} rows saved.`);
  });

  it('exports callback health for the account filtered', async () => {
    // Prepare
    const vic = await t.signedIn('vic');

    // Act
    await vic.goto(`${t.relay.url}/console/#/health?account=quiet`);
    await vic.getByTestId('health-row').first().waitFor();
    const shown = await vic.getByTestId('health-row').allInnerTexts();
    const file = await exported(vic, 'health-csv');

    // Assess: the one account shown, and only it, with its 24 hours.
    expect(shown).toHaveLength(1);
    expect(file.name).toBe('relay-callback-health.csv');
    expect(file.lines[0]!.split(',')).toHaveLength(7 + 24);
    expect(file.lines.slice(1).map((l) => l.split(',').slice(0, 2).join('/'))).toEqual(['momo/quiet']);
  });

  it('exports the audit log with its filters, and the exports are in it naming who took them', async () => {
    // Prepare: the viewer exported the approvals (the audit names that action).
    const vicExport = await t.relay.request('GET', '/v1/approvals?format=csv', undefined, t.as('vic'));
    expect(vicExport.status).toBe(200);
    const bo = await t.signedIn('bo');

    // Act
    await bo.goto(`${t.relay.url}/console/#/audit?action=approvals.export`);
    await bo.getByTestId('audit-row').first().waitFor();
    const file = await exported(bo, 'audit-csv');

    // Assess: every row is an approvals export, by vic (the filter), and the console said how many.
    expect(file.name).toBe('relay-audit.csv');
    const rows = file.lines.slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.includes(',approvals.export,'))).toBe(true);
    expect(rows.some((r) => r.includes(',vic,vic,viewer,'))).toBe(true);
    await bo.getByTestId('audit-csv-said').getByText(`${rows.length} rows saved.`).waitFor();
  });

  it("exports the story's timeline and evidence from the story view, the rows it shows", async () => {
    // Prepare: a payment expired by the poller, then resolved by ana under the limit.
    const reference = await expiredPayment(t, '100');
    const resolved = await t.relay.request(
      'POST',
      `/v1/transactions/momo/open/${reference}/resolve`,
      { status: 'FAILED', note: 'ticket 12' },
      t.as('ana'),
    );
    expect(resolved.status).toBe(200);
    const vic = await t.signedIn('vic');

    // Act
    await vic.goto(`${t.relay.url}/console/#/tx/momo/open/${reference}`);
    await vic.getByTestId('story-title').getByText('FAILED').waitFor();
    const entries = await vic.getByTestId('timeline').locator(':scope > li').count();
    const timeline = await exported(vic, 'story-timeline-csv');
    await vic.getByTestId('story-timeline-csv-said').getByText('rows saved').waitFor();
    const evidence = await exported(vic, 'story-evidence-csv');

    // Assess: one row per timeline entry shown, the resolution naming ana; the evidence names her too.
    expect(timeline.name).toBe(`relay-story-momo-open-${reference}-timeline.csv`);
    expect(timeline.lines[0]).toBe('at,until,type,count,what,said,receiptId,eventId');
    expect(timeline.lines.slice(1)).toHaveLength(entries);
    expect(timeline.lines.some((l) => /,transition,.*ana \(operator\)/.test(l))).toBe(true);
    expect(evidence.name).toBe(`relay-story-momo-open-${reference}-evidence.csv`);
    expect(evidence.lines.some((l) => l.includes(',operator,FAILED,') && l.includes(',ana,'))).toBe(true);
    expect(await vic.getByTestId('story-timeline-csv-said').textContent()).toBe(` ${entries} rows saved.`);
  });
});
