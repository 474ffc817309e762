import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../shared/config/load';
import { decisionContext, HINT_RECHECK_SECONDS } from '../../../shared/app/transactions/decide-report';
import { reconcileTiming } from '../../../shared/app/reconciliation/reconcile-timing';

const ROOT = join(import.meta.dirname, '../../..');

function sources(folder: string): string[] {
  return readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(ROOT, folder, file));
}

describe('the decision context', () => {
  it("takes the window and first check from the transaction's provider and kind, and the hint pace from the time scale", () => {
    // Prepare
    const settings = parseConfig({
      management: { bearerToken: 'test-token-0123456789' },
      reconciliation: { timeScale: 0.5 },
    }).reconciliation;
    const timing = reconcileTiming(settings, 'daraja', 'b2c');

    // Act
    const ctx = decisionContext(
      settings,
      { key: { provider: 'daraja' }, kind: 'b2c' },
      '2026-11-29T08:00:00.000Z',
    );

    // Assess
    expect(ctx).toEqual({
      now: '2026-11-29T08:00:00.000Z',
      reconcileWindowSeconds: timing.windowSeconds,
      firstCheckSeconds: timing.firstCheckSeconds,
      hintRecheckSeconds: HINT_RECHECK_SECONDS * 0.5,
    });
  });

  it('is built in one place: no use case writes its own', () => {
    // Act: every use-case file that spells out a context field.
    const builders = sources('shared/app')
      .filter((file) => /reconcileWindowSeconds\s*:/.test(readFileSync(file, 'utf8')))
      .map((file) => relative(ROOT, file));

    // Assess
    expect(builders).toEqual(['shared/app/transactions/decide-report.ts']);
  });
});
