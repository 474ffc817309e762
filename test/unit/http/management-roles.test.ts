/**
 * Issue 30 items 1-4 through the management router itself (the one the Lambda and `npm start` run), on
 * the memory store: who acts is named, roles are enforced, a resolution above the account's limit waits for
 * a second person, and the audit log keeps every action and refusal (not the quarantine).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalView, AuditPage, MeAnswer } from '../../../shared/app/management-answers';
import { handleManagementRequest } from '../../../shared/http/management-router';
import { toInboundRequest } from '../../../shared/http/api-gateway';
import { managementWorld as world, SHARED_TOKEN, START } from './management-world';

const REF_SMALL = '11111111-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const REF_LARGE = '22222222-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const resolvePath = (ref: string) => `/v1/transactions/momo/demo/${ref}/resolve`;

describe('the management API names who acts and enforces roles', () => {
  it('answers who is signed in, with their role, what it allows and the business time zones', async () => {
    // Prepare
    const w = world();
    // Act
    const viewer = await w.call('vic', 'GET', '/v1/me');
    const admin = await w.call('bo', 'GET', '/v1/me');
    // Assess
    expect(viewer.body as MeAnswer).toEqual({
      actor: { id: 'vic', name: 'vic', email: null, role: 'viewer', via: 'token' },
      can: { operate: false, administer: false },
      timeZones: { business: 'UTC', accounts: { 'momo/demo': 'UTC' } },
      providers: [
        { id: 'momo', name: 'MTN MoMo' },
        { id: 'airtel', name: 'Airtel Money' },
        { id: 'daraja', name: 'Safaricom Daraja' },
      ],
    });
    expect((admin.body as MeAnswer).can).toEqual({ operate: true, administer: true });
  });

  it('refuses a viewer’s resolution with 403 naming the missing role, and audits the refusal', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    // Act
    const refused = await w.call('vic', 'POST', resolvePath(REF_SMALL), {
      status: 'FAILED',
      note: 'no' + 'pe',
    });
    // Assess
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', requiredRole: 'operator' });
    expect(refused.body.error.message).toContain('operator');
    const tx = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_SMALL });
    expect(tx!.status).toBe('EXPIRED');
    expect(w.store.audit.at(-1)).toMatchObject({
      actor: { name: 'vic', role: 'viewer' },
      action: 'transaction.resolve',
      target: `momo/demo/${REF_SMALL}`,
      outcome: 'refused',
      httpStatus: 403,
    });
    expect(w.store.quarantined).toEqual([]);
  });

  it('records a wrong token as a refused sign-in in the audit log, never in the quarantine, without the token', async () => {
    // Prepare
    const w = world();
    // Act
    const res = await w.call(null, 'GET', '/v1/transactions');
    const wrong = await handleManagementRequest(w.services, {
      ...toInboundRequest({
        version: '2.0',
        routeKey: '$default',
        rawPath: '/v1/quarantine',
        rawQueryString: '',
        headers: { authorization: 'Bearer not-the-token-at-all' },
        isBase64Encoded: false,
        requestContext: {
          requestId: 'r',
          http: { method: 'GET', path: '/v1/quarantine', sourceIp: '198.51.100.9' },
          timeEpoch: START,
        },
      } as never),
      receivedAt: new Date(START),
    });
    // Assess
    expect([res.status, wrong.statusCode]).toEqual([401, 401]);
    expect(w.store.audit.map((e) => [e.action, e.outcome, e.actor])).toEqual([
      ['sign-in', 'refused', null],
      ['sign-in', 'refused', null],
    ]);
    expect(JSON.stringify(w.store.audit)).not.toContain('not-the-token-at-all');
    expect(w.store.quarantined).toEqual([]);
  });

  it('lets an operator resolve under the limit alone, naming them in the history, the evidence, the event and the audit log', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    // Act
    const res = await w.call('ana', 'POST', resolvePath(REF_SMALL), {
      status: 'SUCCEEDED',
      note: 'MoMo statement line 17',
    });
    // Assess
    expect(res.status).toBe(200);
    const tx = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_SMALL });
    const ana = { id: 'ana', name: 'ana', email: null, role: 'operator', via: 'token' };
    expect(tx!.status).toBe('SUCCEEDED');
    expect(tx!.transitions.at(-1)!.evidence).toMatchObject({
      source: 'operator',
      actor: ana,
      description: 'resolved by hand: MoMo statement line 17',
    });
    expect(w.store.published.at(-1)!.data.resolvedByHand).toEqual({
      note: 'MoMo statement line 17',
      by: ana,
    });
    // A success has no reason (docs/events.md): the note is its evidence's and resolvedByHand's.
    expect(w.store.published.at(-1)!.data.reason).toBeNull();
    expect(tx!.reason ?? null).toBeNull();
    expect(w.store.audit.at(-1)).toMatchObject({
      actor: ana,
      action: 'transaction.resolve',
      target: `momo/demo/${REF_SMALL}`,
      outcome: 'ok',
    });
    // A reason code with a success is refused, not dropped unsaid.
    const withReason = await w.call('ana', 'POST', resolvePath(REF_SMALL), {
      status: 'SUCCEEDED',
      note: 'MoMo statement line 17',
      reasonCode: 'UNKNOWN',
    });
    expect(withReason.status).toBe(400);
    expect(withReason.body.error.message).toBe('reasonCode is for a FAILED resolution only');
  });
});

describe('four eyes above the account limit', () => {
  it('keeps a resolution above the limit pending until another admin approves, then records both names', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    // Act
    const asked = await w.call('ana', 'POST', resolvePath(REF_LARGE), {
      status: 'SUCCEEDED',
      note: 'MoMo statement line 18',
    });
    const approval = asked.body.approval as ApprovalView;
    const before = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_LARGE });
    const listed = await w.call('vic', 'GET', '/v1/approvals?state=pending');
    const byOperator = await w.call('ana', 'POST', `/v1/approvals/${approval.id}/approve`);
    const approved = await w.call('bo', 'POST', `/v1/approvals/${approval.id}/approve`, { note: 'checked' });
    const again = await w.call('cy', 'POST', `/v1/approvals/${approval.id}/approve`);
    // Assess
    expect(asked.status).toBe(202);
    expect(approval).toMatchObject({
      state: 'pending',
      amount: '1000',
      limit: '500',
      requestedBy: { name: 'ana' },
    });
    expect(before!.status).toBe('EXPIRED');
    expect((listed.body.approvals as ApprovalView[]).map((a) => a.id)).toEqual([approval.id]);
    expect(byOperator.status).toBe(403);
    expect(approved.status).toBe(200);
    expect(again.status).toBe(409);
    const after = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_LARGE });
    expect(after!.status).toBe('SUCCEEDED');
    expect(after!.transitions.at(-1)!.evidence).toMatchObject({
      actor: { name: 'ana' },
      approvedBy: { name: 'bo' },
    });
    expect(w.store.published.at(-1)!.data.resolvedByHand).toMatchObject({
      by: { name: 'ana' },
      approvedBy: { name: 'bo' },
    });
    const audit = (await w.call('bo', 'GET', '/v1/audit?action=approval.')).body as AuditPage;
    // Same instant (a fixed clock): compared without their order.
    expect(audit.entries.map((e) => [e.actor?.name, e.action, e.outcome]).sort()).toEqual([
      ['ana', 'approval.approve', 'refused'],
      ['bo', 'approval.approve', 'ok'],
      ['cy', 'approval.approve', 'refused'],
    ]);
    expect(w.store.audit.find((e) => e.outcome === 'pending')).toMatchObject({
      actor: { name: 'ana' },
      action: 'transaction.resolve',
    });
  });

  it('weighs the amount the relay holds, not a smaller one the operator states: a FAILED of 1 on 1000 waits too', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    // Act
    const asked = await w.call('ana', 'POST', resolvePath(REF_LARGE), {
      status: 'FAILED',
      note: 'customer says no',
      amount: '1',
    });
    // Assess
    expect(asked.status).toBe(202);
    expect(asked.body.approval).toMatchObject({ state: 'pending', amount: '1000', limit: '500' });
    const tx = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_LARGE });
    expect(tx!.status).toBe('EXPIRED');
  });

  it('refuses the requester’s own approval, even as an admin', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    const asked = await w.call('bo', 'POST', resolvePath(REF_LARGE), {
      status: 'FAILED',
      note: 'never paid',
    });
    // Act
    const own = await w.call('bo', 'POST', `/v1/approvals/${asked.body.approval.id}/approve`);
    const other = await w.call('cy', 'POST', `/v1/approvals/${asked.body.approval.id}/reject`, {
      note: 'wait',
    });
    // Assess
    expect(asked.status).toBe(202);
    expect(own.status).toBe(403);
    expect(own.body.error.code).toBe('SELF_APPROVAL');
    expect(other.body.approval).toMatchObject({
      state: 'rejected',
      decidedBy: { name: 'cy' },
      decisionNote: 'wait',
    });
    const tx = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_LARGE });
    expect(tx!.status).toBe('EXPIRED');
  });

  it('lets a pending request expire: it is listed as expired and can no longer be approved', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    const asked = await w.call('ana', 'POST', resolvePath(REF_LARGE), {
      status: 'FAILED',
      note: 'never paid',
    });
    // Act
    w.advance(3601);
    const listed = await w.call('vic', 'GET', '/v1/approvals');
    const late = await w.call('bo', 'POST', `/v1/approvals/${asked.body.approval.id}/approve`);
    // Assess
    expect((listed.body.approvals as ApprovalView[])[0]!.state).toBe('expired');
    expect(late.status).toBe(409);
    expect(late.body.error.code).toBe('APPROVAL_STATE');
  });
});

describe('the audit log API', () => {
  it('filters by actor and outcome and exports CSV that a spreadsheet cannot run', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    await w.call('ana', 'POST', resolvePath(REF_SMALL), {
      status: 'FAILED',
      note: '=HYPERLINK("x") said no',
    });
    await w.call('vic', 'POST', `/v1/transactions/momo/demo/${REF_SMALL}/check`);
    // Act
    const byVic = (await w.call('bo', 'GET', '/v1/audit?actor=vic')).body as AuditPage;
    const refused = (await w.call('bo', 'GET', '/v1/audit?outcome=refused')).body as AuditPage;
    const csv = await w.call('bo', 'GET', '/v1/audit?format=csv&actor=ana');
    const asOperator = await w.call('ana', 'GET', '/v1/audit');
    const bad = await w.call('bo', 'GET', '/v1/audit?outcome=maybe');
    // Assess
    expect(byVic.entries.map((e) => e.action)).toEqual(['transaction.check']);
    expect(refused.entries.map((e) => e.actor?.name)).toEqual(['vic']);
    expect(csv.headers['content-type']).toContain('text/csv');
    const lines = String(csv.body).trim().split('\r\n');
    expect(lines[0]).toBe(
      'at,actor,actorId,role,via,action,target,outcome,httpStatus,detail,method,path,sourceIp',
    );
    expect(lines.filter((l) => l.includes('transaction.resolve'))).toHaveLength(1);
    expect(String(csv.body)).toContain('resolve FAILED: =HYPERLINK(""x"") said no');
    expect(asOperator.status).toBe(403);
    expect(bad.status).toBe(400);
    expect(w.store.audit.at(-1)).toMatchObject({ action: 'audit.read', outcome: 'refused' });
    expect(w.store.audit.some((e) => e.action === 'audit.export' && e.actor?.name === 'bo')).toBe(true);
  });
});

describe('the shared bearer token names the person acting', () => {
  const shared = (actor?: string) => ({
    authorization: `Bearer ${SHARED_TOKEN}`,
    ...(actor === undefined ? {} : { 'x-relay-actor': actor }),
  });

  it('refuses a manual action without X-Relay-Actor (400, nothing changed, audited), reads and registrations still pass', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    // Act
    const refused = await w.callWith(shared(), 'POST', resolvePath(REF_SMALL), {
      status: 'FAILED',
      note: 'x',
    });
    const me = await w.callWith(shared(), 'GET', '/v1/me');
    const registered = await w.callWith(shared(), 'POST', '/v1/transactions', {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: REF_LARGE,
      amount: '100',
      currency: 'EUR',
    });
    // Assess
    expect(refused.status).toBe(400);
    expect(refused.body.error.code).toBe('ACTOR_REQUIRED');
    expect(refused.body.error.message).toContain('x-relay-actor');
    const tx = await w.store.getTransaction({ provider: 'momo', account: 'demo', reference: REF_SMALL });
    expect(tx!.status).toBe('EXPIRED');
    expect(w.store.audit.find((e) => e.action === 'transaction.resolve')).toMatchObject({
      actor: { name: 'bearer-token (shared)' },
      outcome: 'refused',
      httpStatus: 400,
    });
    expect(me.status).toBe(200);
    expect((me.body as MeAnswer).actor.name).toBe('bearer-token (shared)');
    expect(registered.status).toBe(201);
  });

  it('records the named person on the action and in the audit log, and refuses a header that is no name', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    // Act
    const resolved = await w.callWith(shared('Ada Lovelace'), 'POST', resolvePath(REF_SMALL), {
      status: 'FAILED',
      note: 'confirmed by phone',
    });
    const notAName = await w.callWith(shared('-- . --'), 'GET', '/v1/me');
    const theToken = await w.callWith(shared('Bearer-Token'), 'GET', '/v1/me');
    // Assess
    expect(resolved.status).toBe(200);
    expect(w.store.audit.find((e) => e.action === 'transaction.resolve')).toMatchObject({
      actor: { id: 'bearer-token:Ada Lovelace', name: 'Ada Lovelace (shared token)', role: 'admin' },
      outcome: 'ok',
    });
    expect(notAName.status).toBe(400);
    expect(notAName.body.error.code).toBe('ACTOR_REQUIRED');
    // The token's own name is nobody's.
    expect(theToken.status).toBe(400);
    expect(theToken.body.error).toMatchObject({ code: 'ACTOR_REQUIRED' });
    expect(theToken.body.error.message).toContain('not the shared token');
  });

  it('refuses a name that would break or disguise an audit line (the one control-character rule, format characters)', async () => {
    // Prepare
    const w = world();
    // Act
    const answers = await Promise.all(
      ['Ada\u2028admin', 'Ada\u0085x', 'Ada\u202eecilA'].map((name) =>
        w.callWith(shared(name), 'GET', '/v1/me'),
      ),
    );
    // Assess
    expect(answers.map((a) => [a.status, a.body.error?.code])).toEqual(
      answers.map(() => [400, 'ACTOR_REQUIRED']),
    );
  });
});

describe('four eyes are two people the relay can tell apart', () => {
  const shared = (actor?: string) => ({
    authorization: `Bearer ${SHARED_TOKEN}`,
    ...(actor === undefined ? {} : { 'x-relay-actor': actor }),
  });
  const momoLarge = { provider: 'momo', account: 'demo', reference: REF_LARGE };

  it('refuses to open a request above the limit with the shared token, whatever name it types (403, nothing pending, audited)', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    // Act
    const asked = await w.callWith(shared('Mallory'), 'POST', resolvePath(REF_LARGE), {
      status: 'SUCCEEDED',
      note: 'paid, trust me',
    });
    const pending = await w.call('bo', 'GET', '/v1/approvals');
    // Assess
    expect(asked.status).toBe(403);
    expect(asked.body.error.code).toBe('NAMED_SIGN_IN_REQUIRED');
    expect(asked.body.error.message).toContain('named token');
    expect((pending.body.approvals as ApprovalView[]).length).toBe(0);
    expect((await w.store.getTransaction(momoLarge))!.status).toBe('EXPIRED');
    expect(w.store.audit.find((e) => e.action === 'transaction.resolve')).toMatchObject({
      actor: { name: 'Mallory (shared token)' },
      outcome: 'refused',
      httpStatus: 403,
    });
  });

  it('refuses the shared token’s approval or rejection of a named person’s request: nothing applied, no event', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_LARGE, '1000');
    const asked = await w.call('ana', 'POST', resolvePath(REF_LARGE), {
      status: 'SUCCEEDED',
      note: 'line 18',
    });
    const id = (asked.body.approval as ApprovalView).id;
    const eventsBefore = w.store.published.length;
    // Act
    const approved = await w.callWith(shared('Mallory Two'), 'POST', `/v1/approvals/${id}/approve`);
    const rejected = await w.callWith(shared('Mallory Two'), 'POST', `/v1/approvals/${id}/reject`);
    const byAdmin = await w.call('bo', 'POST', `/v1/approvals/${id}/approve`);
    // Assess
    expect([approved.status, approved.body.error.code]).toEqual([403, 'NAMED_SIGN_IN_REQUIRED']);
    expect([rejected.status, rejected.body.error.code]).toEqual([403, 'NAMED_SIGN_IN_REQUIRED']);
    expect(w.store.published.length).toBe(eventsBefore + 1);
    expect(byAdmin.status).toBe(200);
    expect((await w.store.getTransaction(momoLarge))!.status).toBe('SUCCEEDED');
  });

  it('lets a named admin reject, never approve, a request the shared token opened before this rule', async () => {
    // Prepare: a pending request as an older relay stored it.
    const w = world();
    await w.expired(REF_LARGE, '1000');
    const asked = await w.call('ana', 'POST', resolvePath(REF_LARGE), {
      status: 'SUCCEEDED',
      note: 'line 18',
    });
    const stored = (await w.store.getApproval((asked.body.approval as ApprovalView).id))!;
    const old = {
      ...stored,
      id: `${stored.id}-old`,
      requestedBy: {
        id: 'bearer-token:Mallory',
        name: 'Mallory (shared token)',
        email: null,
        role: 'admin' as const,
        via: 'token' as const,
      },
    };
    await w.store.createApproval(old);
    // Act
    const approved = await w.call('bo', 'POST', `/v1/approvals/${old.id}/approve`);
    const rejected = await w.call('bo', 'POST', `/v1/approvals/${old.id}/reject`, {
      note: 'ask again, signed in',
    });
    // Assess
    expect([approved.status, approved.body.error.code]).toEqual([403, 'NAMED_SIGN_IN_REQUIRED']);
    expect(rejected.status).toBe(200);
    expect((await w.store.getTransaction(momoLarge))!.status).toBe('EXPIRED');
  });

  it('names the person behind every export: a CSV with the shared token needs X-Relay-Actor, a JSON read does not', async () => {
    // Prepare
    const w = world();
    await w.expired(REF_SMALL, '100');
    // Act
    const anonymous = await w.callWith(shared(), 'GET', '/v1/transactions?format=csv');
    const named = await w.callWith(shared('Ada Lovelace'), 'GET', '/v1/transactions?format=csv');
    const read = await w.callWith(shared(), 'GET', '/v1/transactions');
    // Assess
    expect([anonymous.status, anonymous.body.error.code]).toEqual([400, 'ACTOR_REQUIRED']);
    expect(anonymous.body.error.message).toContain('An export (GET /v1/transactions?format=csv) is a person');
    expect(named.status).toBe(200);
    expect(read.status).toBe(200);
    expect(w.store.audit.map((e) => [e.actor?.name, e.outcome, e.httpStatus, e.action])).toEqual([
      ['bearer-token (shared)', 'refused', 400, 'read'],
      ['Ada Lovelace (shared token)', 'ok', 200, 'transactions.export'],
    ]);
  });
});
