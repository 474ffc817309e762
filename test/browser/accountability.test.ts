/**
 * Issue 30 "Done when", in a real Chromium on the real local relay (DynamoDB Local): two people with
 * different roles — the operator resolves one payment under the account's limit; their resolution of a
 * larger one waits until the admin approves it; both names appear in the story, the event and the audit
 * log; a viewer is not offered the resolution and the API refuses it (403 naming the role).
 */
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { expiredPayment, TEAM, useConsoleOnRelay } from './harness';

const t = useConsoleOnRelay(
  () => ({
    management: { resolveLimits: { 'momo/open': '500' } },
    accounts: { momo: { open: { currency: 'EUR' } } },
  }),
  TEAM,
);

async function resolveInConsole(page: Page, reference: string, note: string): Promise<void> {
  await page.goto(`${t.relay.url}/console/#/tx/momo/open/${reference}`);
  await page.getByTestId('resolve').click();
  const form = page.getByTestId('resolve-form');
  await form.getByLabel('Outcome').selectOption('FAILED');
  await form.getByLabel(/Note/).fill(note);
  await form.getByRole('button', { name: 'Review' }).click();
  await form.getByRole('button', { name: 'Confirm FAILED' }).click();
}

describe('accountable operations in the console', () => {
  it('an operator resolves under the limit; above it the admin approves; both are named everywhere; a viewer cannot resolve', async () => {
    // Prepare
    const small = await expiredPayment(t, '100');
    const large = await expiredPayment(t, '1000');
    const ana = await t.signedIn('ana');
    const bo = await t.signedIn('bo');
    const vic = await t.signedIn('vic');

    // Act: ana resolves both; bo approves the large one in Approvals.
    await resolveInConsole(ana, small, 'customer never approved (ticket 7)');
    await ana.getByTestId('story-title').getByText('FAILED').waitFor();
    await resolveInConsole(ana, large, 'statement shows no debit (ticket 8)');
    await ana.getByTestId('resolve-pending').waitFor();
    const waiting = (
      await t.relay.request('GET', `/v1/transactions/momo/open/${large}`, undefined, t.as('vic'))
    ).body.transaction.status;
    await bo.goto(`${t.relay.url}/console/#/approvals`);
    await bo.getByTestId('approval-row').filter({ hasText: large }).getByTestId('approval-approve').click();
    await bo
      .getByTestId('approval-row')
      .filter({ hasText: large })
      .getByTestId('approval-state')
      .getByText('approved')
      .waitFor();
    // vic: no resolve button in the story, and the API refuses the call.
    await vic.goto(`${t.relay.url}/console/#/tx/momo/open/${small}`);
    await vic.getByTestId('story-title').waitFor();
    const vicResolve = await t.relay.request(
      'POST',
      `/v1/transactions/momo/open/${small}/resolve`,
      { status: 'FAILED', note: 'viewer tries' },
      t.as('vic'),
    );

    // Assess: the large one waited, then settled naming both.
    expect(waiting).toBe('EXPIRED');
    await bo.goto(`${t.relay.url}/console/#/tx/momo/open/${large}`);
    await bo.getByTestId('story-title').getByText('FAILED').waitFor();
    const story = await bo.locator('main').innerText();
    expect(story).toContain('by ana (operator), approved by bo (admin)');
    const events = await t.relay.flush();
    const failedLarge = events.find(
      (e) => e.metadata.type === 'TransactionFailed' && JSON.stringify(e.data).includes(large),
    );
    expect((failedLarge!.data as any).resolvedByHand).toMatchObject({
      by: { name: 'ana' },
      approvedBy: { name: 'bo' },
    });
    const failedSmall = events.find(
      (e) => e.metadata.type === 'TransactionFailed' && JSON.stringify(e.data).includes(small),
    );
    expect((failedSmall!.data as any).resolvedByHand.by).toMatchObject({ name: 'ana', role: 'operator' });
    await bo.goto(`${t.relay.url}/console/#/audit`);
    await bo.getByTestId('audit-table').waitFor();
    const audit = await bo.getByTestId('audit-table').innerText();
    expect(audit).toContain('ana (operator)');
    expect(audit).toContain('bo (admin)');
    expect(audit).toContain('approval.approve');
    expect(audit).toContain('vic (viewer)');
    expect(await vic.getByTestId('resolve').count()).toBe(0);
    expect(await vic.getByTestId('check-now').count()).toBe(0);
    expect(vicResolve.status).toBe(403);
    expect(vicResolve.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', requiredRole: 'operator' });
  });
});
