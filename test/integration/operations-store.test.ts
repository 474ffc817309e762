/**
 * The audit log and the approval requests on DynamoDB Local (issue 30 items 3 and 4): an audit entry is
 * written once (a second write of the same entry is refused by its condition, never replacing it), read
 * back newest first by day; an approval request moves on only from the state the caller saw.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { ApprovalRequest, AuditEntry } from '../../shared/app/ports';
import { StorageUnavailableError } from '../../shared/domain/errors';
import { createTestTable } from '../helpers/dynamo';

let table: Awaited<ReturnType<typeof createTestTable>>;
beforeAll(async () => {
  table = await createTestTable();
});
afterAll(async () => {
  await table.drop();
});

const ana = { id: 'ana', name: 'ana', email: null, role: 'operator', via: 'token' } as const;
const bo = {
  id: 'sub-bo',
  name: 'bo@example.com',
  email: 'bo@example.com',
  role: 'admin',
  via: 'cognito',
} as const;

function entry(id: string, at: string, overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id,
    at,
    actor: ana,
    action: 'transaction.resolve',
    target: 'momo/demo/ref-1',
    outcome: 'ok',
    httpStatus: 200,
    detail: 'resolve FAILED: never paid',
    method: 'POST',
    path: '/v1/transactions/momo/demo/ref-1/resolve',
    sourceIp: '192.0.2.1',
    ...overrides,
  };
}

describe('the audit log in DynamoDB', () => {
  it('keeps an entry as first written: writing the same entry again is refused, not a replacement', async () => {
    // Prepare
    const first = entry('a1', '2026-11-20T10:00:00.000Z');
    await table.store.appendAudit(first);
    // Act
    const again = table.store.appendAudit({ ...first, outcome: 'refused', detail: 'rewritten' });
    // Assess
    await expect(again).rejects.toBeInstanceOf(StorageUnavailableError);
    const { entries } = await table.store.listAuditDay('2026-11-20', { limit: 10 });
    expect(entries).toEqual([first]);
  });

  it('reads a day newest first, page by page', async () => {
    // Prepare
    for (const [id, minute] of [
      ['b1', 1],
      ['b2', 2],
      ['b3', 3],
    ] as const)
      await table.store.appendAudit(entry(id, `2026-11-21T10:0${minute}:00.000Z`, { actor: bo }));
    // Act
    const first = await table.store.listAuditDay('2026-11-21', { limit: 2 });
    const second = await table.store.listAuditDay('2026-11-21', { limit: 2, after: first.next! });
    // Assess
    expect(first.entries.map((e) => e.id)).toEqual(['b3', 'b2']);
    expect(second.entries.map((e) => e.id)).toEqual(['b1']);
    expect(second.entries[0]!.actor).toEqual(bo);
  });

  it('has no update or delete path for audit entries anywhere in the code', () => {
    // The audit partitions are only ever written by appendAudit's conditional put.
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (path.endsWith('.ts')) files.push(path);
      }
    };
    for (const dir of ['shared', 'functions', 'local', 'scripts']) walk(dir);
    const touching = files.filter((f) => /AUDIT_PK_PREFIX/.test(readFileSync(f, 'utf8')));
    for (const file of touching) {
      const text = readFileSync(file, 'utf8');
      expect(text, file).not.toMatch(
        /UpdateCommand\([^)]*AUDIT|DeleteCommand|BatchWriteCommand|TransactWriteCommand/,
      );
    }
    // Two uses: appendAudit's conditional put and listAuditDay's query.
    const uses = readFileSync('shared/adapters/dynamodb/relay-store.ts', 'utf8').match(
      /\$\{AUDIT_PK_PREFIX\}/g,
    );
    expect(uses).toHaveLength(2);
    expect(touching.sort()).toEqual([
      'shared/adapters/dynamodb/relay-store.ts',
      'shared/adapters/dynamodb/table.ts',
    ]);
  });
});

describe('approval requests in DynamoDB', () => {
  const request: ApprovalRequest = {
    id: '20261122100000000-aa',
    createdAt: '2026-11-22T10:00:00.000Z',
    openUntil: '2026-11-23T10:00:00.000Z',
    key: { provider: 'momo', account: 'demo', reference: 'ref-2' },
    resolution: { status: 'SUCCEEDED', note: 'statement line 4' },
    amount: '1000',
    currency: 'EUR',
    limit: '500',
    requestedBy: ana,
    state: 'pending',
    decidedBy: null,
    decidedAt: null,
    decisionNote: null,
  };

  it('decides a pending request once: the second decision from "pending" is refused', async () => {
    // Prepare
    await table.store.createApproval(request);
    const approved = {
      ...request,
      state: 'approved' as const,
      decidedBy: bo,
      decidedAt: '2026-11-22T10:05:00.000Z',
    };
    // Act
    const first = await table.store.decideApproval(approved, 'pending');
    const second = await table.store.decideApproval({ ...approved, state: 'rejected' }, 'pending');
    // Assess
    expect([first, second]).toEqual([true, false]);
    expect(await table.store.getApproval(request.id, { consistent: true })).toEqual(approved);
    expect((await table.store.listApprovals(10)).map((r) => r.id)).toEqual([request.id]);
    await expect(table.store.createApproval(request)).rejects.toBeInstanceOf(StorageUnavailableError);
  });
});
