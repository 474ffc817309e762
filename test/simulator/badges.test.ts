import { afterEach, describe, expect, it } from 'vitest';
import type { Simulator, SimulatorOptions } from '../../simulator/server';
import { call, startSim } from './helpers';

/** The plugin's Badge: dates with an offset (valid_*) and the platform's "YYYY-MM-DD HH:mm:ss" (created/updated). */
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}[+-]\d{2}:\d{2}$/;
const SITE_DATETIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const BASE = '/wp-json/cpbw/v1';

let sim: Simulator;
afterEach(async () => {
  await sim?.close();
});

async function start(options: SimulatorOptions = {}) {
  sim = await startSim(options);
  return sim;
}

const createBody = (extra: Record<string, unknown> = {}) => ({
  badge_name: 'Flash sale',
  badge_type: 'image',
  filter: 'all',
  badge_style: '<span class="badge">-20%</span>',
  badge_settings: { display: 'block', 'justify-content': 'center' },
  ...extra,
});

const KITENGE_SHIRT = {
  id: 101,
  name: 'Kitenge Shirt',
  sku: 'KIT-SHIRT-01',
  image: 'https://shop.example.com/wp-content/uploads/2026/01/kitenge-shirt.jpg',
};

/** Every field of the plugin's Badge, with its type, in a response. */
function expectBadgeShape(b: Record<string, any>) {
  expect(Object.keys(b).sort()).toEqual(
    [
      '_links',
      'badge_name',
      'badge_settings',
      'badge_style',
      'badge_type',
      'created_at',
      'created_by',
      'filter',
      'id',
      'priority',
      'status',
      'updated_at',
      'valid_from',
      'valid_to',
    ].sort(),
  );
  expect(b.id).toMatch(/^\d+$/);
  for (const k of ['badge_name', 'badge_type', 'badge_style', 'created_by'])
    expect(typeof b[k]).toBe('string');
  expect(b.filter === 'all' || Number.isInteger(b.filter) || Array.isArray(b.filter)).toBe(true);
  expect(typeof b.badge_settings).toBe('object');
  expect(Array.isArray(b.badge_settings)).toBe(false);
  expect(b.priority).toMatch(/^\d+$/);
  expect(b.status).toMatch(/^\d+$/);
  expect(b.valid_from).toMatch(ISO_WITH_OFFSET);
  expect(b.valid_to).toMatch(ISO_WITH_OFFSET);
  expect(b.created_at).toMatch(SITE_DATETIME);
  expect(b.updated_at).toMatch(SITE_DATETIME);
  expect(b._links).toEqual({
    self: [{ href: `${sim.url}${BASE}/badges/${b.id}` }],
    collection: [{ href: `${sim.url}${BASE}/badges` }],
  });
}

const create = (body: unknown, headers: Record<string, string> = {}) =>
  call(sim, 'POST', `${BASE}/badges`, { body, headers });

describe('badge API (cpbw/v1): reads', () => {
  it('lists the deterministic demo badges, one per filter shape', async () => {
    await start();
    const r = await call(sim, 'GET', `${BASE}/badges`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.headers.get('x-wp-total')).toBe('3');
    expect(Array.isArray(r.json)).toBe(true);
    expect(r.json.map((b: { id: string }) => b.id)).toEqual(['1', '2', '3']);
    for (const b of r.json) expectBadgeShape(b);
    const [all, products, single] = r.json;
    expect(all.filter).toBe('all');
    expect(products.filter).toEqual([
      KITENGE_SHIRT,
      expect.objectContaining({ id: 102, name: 'Kitenge Dress', sku: 'KIT-DRESS-01' }),
    ]);
    expect(single.filter).toBe(105);
    expect(all).toMatchObject({
      badge_name: 'New arrival',
      badge_type: 'image',
      badge_settings: { display: 'block', justify_content: 'flex-start' },
      priority: '1',
      status: '1',
      created_by: 'admin',
      valid_from: '2026-01-01T00:00:00+03:00',
      valid_to: '2030-12-31T23:59:59+03:00',
      created_at: '2026-01-05 09:00:00',
      updated_at: '2026-01-05 09:00:00',
    });
  });

  it('reads one badge; an unknown or malformed id is a WordPress-style 404', async () => {
    await start();
    const r = await call(sim, 'GET', `${BASE}/badges/2`);
    expect(r.status).toBe(200);
    expectBadgeShape(r.json);
    expect(r.json.badge_name).toBe('Flash sale -20%');
    for (const id of ['999', 'abc']) {
      const missing = await call(sim, 'GET', `${BASE}/badges/${id}`);
      expect(missing.status).toBe(404);
      expect(missing.json).toEqual({
        code: 'rest_badge_invalid_id',
        message: 'Invalid badge ID.',
        data: { status: 404 },
      });
    }
  });
});

describe('badge API (cpbw/v1): create', () => {
  it('answers 201 with the Badge: integer priority/status become strings, justify-content becomes justify_content', async () => {
    await start();
    const before = Date.now();
    const r = await create(createBody({ priority: 5, status: 0 }));
    expect(r.status).toBe(201);
    expectBadgeShape(r.json);
    expect(r.json).toMatchObject({
      id: '4',
      badge_name: 'Flash sale',
      badge_type: 'image',
      filter: 'all',
      badge_style: '<span class="badge">-20%</span>',
      badge_settings: { display: 'block', justify_content: 'center' },
      priority: '5',
      status: '0',
      created_by: 'admin',
    });
    expect(r.json.badge_settings).not.toHaveProperty('justify-content');
    expect(r.headers.get('location')).toBe(`${sim.url}${BASE}/badges/4`);
    // Defaults: valid from now, for a year; created_at = updated_at = now, in site time (+03:00).
    const from = Date.parse(r.json.valid_from);
    expect(from).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(from).toBeLessThanOrEqual(Date.now());
    expect(Date.parse(r.json.valid_to) - from).toBe(365 * 24 * 3600_000);
    expect(r.json.valid_from.endsWith('+03:00')).toBe(true);
    expect(r.json.created_at).toBe(r.json.valid_from.slice(0, 19).replace('T', ' '));
    expect(r.json.updated_at).toBe(r.json.created_at);

    const again = await call(sim, 'GET', `${BASE}/badges/4`);
    expect(again.json).toEqual(r.json);
  });

  it('takes filter as "all", an integer or an array of product items, and keeps the shape', async () => {
    await start();
    const asInt = await create(createBody({ filter: 42 }));
    expect(asInt.status).toBe(201);
    expect(asInt.json.filter).toBe(42);
    const asArray = await create(createBody({ filter: [KITENGE_SHIRT] }));
    expect(asArray.status).toBe(201);
    expect(asArray.json.filter).toEqual([KITENGE_SHIRT]);
    const asAll = await create(createBody({ filter: 'all' }));
    expect(asAll.json.filter).toBe('all');
    expect([asInt.json.id, asArray.json.id, asAll.json.id]).toEqual(['4', '5', '6']);
  });

  it('defaults priority to "0" and status to "1"', async () => {
    await start();
    const r = await create(createBody());
    expect(r.json.priority).toBe('0');
    expect(r.json.status).toBe('1');
  });

  it('reads valid_from/valid_to in any offset (or none: site time) and writes them in the site offset', async () => {
    await start();
    const r = await create(
      createBody({ valid_from: '2026-11-23T07:00:00Z', valid_to: '2026-12-31T23:59:59+01:00' }),
    );
    expect(r.status).toBe(201);
    expect(r.json.valid_from).toBe('2026-11-23T10:00:00+03:00');
    expect(r.json.valid_to).toBe('2027-01-01T01:59:59+03:00');
    const dateOnly = await create(createBody({ valid_from: '2026-12-01', valid_to: '2026-12-24 18:00:00' }));
    expect(dateOnly.json.valid_from).toBe('2026-12-01T00:00:00+03:00');
    expect(dateOnly.json.valid_to).toBe('2026-12-24T18:00:00+03:00');
  });

  it('answers 400 rest_missing_callback_param naming every missing field', async () => {
    await start();
    const r = await create({ badge_name: 'x' });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): badge_type, filter, badge_style, badge_settings',
      data: { status: 400, params: ['badge_type', 'filter', 'badge_style', 'badge_settings'] },
    });
    const empty = await call(sim, 'POST', `${BASE}/badges`);
    expect(empty.status).toBe(400);
    expect(empty.json.code).toBe('rest_missing_callback_param');
  });

  it.each([
    ['filter', 'some'],
    ['filter', 1.5],
    ['filter', []],
    ['filter', [{ id: 101, name: 'x', sku: 'y' }]],
    ['filter', [{ ...KITENGE_SHIRT, id: '101' }]],
    ['filter', [{ ...KITENGE_SHIRT, image: 'not a url' }]],
    ['priority', '3'],
    ['priority', 1.5],
    ['status', '1'],
    ['status', -1],
    ['badge_name', ''],
    ['badge_type', 7],
    ['badge_style', null],
    ['badge_settings', ['block']],
    ['badge_settings', { display: { nested: true } }],
    ['badge_settings', { 'justify-content': 'center', justify_content: 'left' }],
    ['valid_from', 'tomorrow'],
    ['valid_to', '2026-02-30T10:00:00+03:00'],
    ['valid_to', 1767225600],
  ])('answers 400 rest_invalid_param for %s = %j', async (field, value) => {
    await start();
    const r = await create(createBody({ [field]: value }));
    expect(r.status).toBe(400);
    expect(r.json.code).toBe('rest_invalid_param');
    expect(r.json.message).toBe(`Invalid parameter(s): ${field}`);
    expect(r.json.data.status).toBe(400);
    expect(typeof r.json.data.params[field]).toBe('string');
    expect((await call(sim, 'GET', `${BASE}/badges`)).json).toHaveLength(3);
  });

  it('refuses valid_to before valid_from, a body that is not JSON, and one that is not an object', async () => {
    await start();
    const period = await create(
      createBody({ valid_from: '2026-12-01T00:00:00+03:00', valid_to: '2026-11-01T00:00:00+03:00' }),
    );
    expect(period.status).toBe(400);
    expect(period.json.data.params).toHaveProperty('valid_to');
    const notJson = await call(sim, 'POST', `${BASE}/badges`, {
      raw: '{"badge_name":',
      headers: { 'content-type': 'application/json' },
    });
    expect(notJson.status).toBe(400);
    expect(notJson.json.code).toBe('rest_invalid_json');
    const array = await create([createBody()]);
    expect(array.status).toBe(400);
    expect(array.json.code).toBe('rest_invalid_param');
  });
});

describe('badge API (cpbw/v1): update and delete', () => {
  it('PUT is a partial update answering 200 with the Badge; updated_at moves, created_at stays', async () => {
    await start();
    const before = (await call(sim, 'GET', `${BASE}/badges/1`)).json;
    const r = await call(sim, 'PUT', `${BASE}/badges/1`, {
      body: { badge_name: 'Renamed', priority: 9, badge_settings: { 'justify-content': 'space-between' } },
    });
    expect(r.status).toBe(200);
    expectBadgeShape(r.json);
    expect(r.json).toEqual({
      ...before,
      badge_name: 'Renamed',
      priority: '9',
      badge_settings: { justify_content: 'space-between' },
      updated_at: r.json.updated_at,
    });
    expect(r.json.created_at).toBe('2026-01-05 09:00:00');
    expect(r.json.updated_at).not.toBe(before.updated_at);
    expect(r.json.updated_at > before.updated_at).toBe(true);
    expect((await call(sim, 'GET', `${BASE}/badges/1`)).json).toEqual(r.json);
  });

  it('PUT changes the filter shape and the validity period; a bad field changes nothing', async () => {
    await start();
    const r = await call(sim, 'PUT', `${BASE}/badges/1`, {
      body: { filter: [KITENGE_SHIRT], valid_to: '2026-12-24T18:00:00+03:00', status: 0 },
    });
    expect(r.status).toBe(200);
    expect(r.json.filter).toEqual([KITENGE_SHIRT]);
    expect(r.json.valid_to).toBe('2026-12-24T18:00:00+03:00');
    expect(r.json.status).toBe('0');
    const bad = await call(sim, 'PUT', `${BASE}/badges/1`, { body: { badge_name: 'x', priority: 'high' } });
    expect(bad.status).toBe(400);
    expect(bad.json.data.params).toHaveProperty('priority');
    expect((await call(sim, 'GET', `${BASE}/badges/1`)).json).toEqual(r.json);
    const period = await call(sim, 'PUT', `${BASE}/badges/1`, { body: { valid_to: '2025-01-01T00:00:00Z' } });
    expect(period.status).toBe(400);
    const unknown = await call(sim, 'PUT', `${BASE}/badges/77`, { body: { badge_name: 'x' } });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('rest_badge_invalid_id');
  });

  it('DELETE answers 200 {deleted: true, previous: Badge}; the id is then 404 and never reused', async () => {
    await start();
    const before = (await call(sim, 'GET', `${BASE}/badges/3`)).json;
    const r = await call(sim, 'DELETE', `${BASE}/badges/3`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual({ deleted: true, previous: before });
    expectBadgeShape(r.json.previous);
    for (const method of ['GET', 'DELETE']) {
      const gone = await call(sim, method, `${BASE}/badges/3`);
      expect(gone.status).toBe(404);
      expect(gone.json).toEqual({
        code: 'rest_badge_invalid_id',
        message: 'Invalid badge ID.',
        data: { status: 404 },
      });
    }
    expect((await call(sim, 'PUT', `${BASE}/badges/3`, { body: { status: 1 } })).status).toBe(404);
    const list = (await call(sim, 'GET', `${BASE}/badges`)).json;
    expect(list.map((b: { id: string }) => b.id)).toEqual(['1', '2']);
    expect((await create(createBody())).json.id).toBe('4');
  });
});

describe('badge API (cpbw/v1): product search', () => {
  it('finds products of the fixed catalogue by name (case-insensitive) or SKU', async () => {
    await start();
    const r = await call(sim, 'GET', `${BASE}/search/product?search=KITENGE`);
    expect(r.status).toBe(200);
    expect(r.json).toEqual([
      KITENGE_SHIRT,
      {
        id: 102,
        name: 'Kitenge Dress',
        sku: 'KIT-DRESS-01',
        image: 'https://shop.example.com/wp-content/uploads/2026/01/kitenge-dress.jpg',
      },
    ]);
    for (const item of r.json) {
      expect(Object.keys(item).sort()).toEqual(['id', 'image', 'name', 'sku']);
      expect(Number.isInteger(item.id)).toBe(true);
      expect(() => new URL(item.image)).not.toThrow();
    }
    const bySku = await call(sim, 'GET', `${BASE}/search/product?search=cof-aa`);
    expect(bySku.json.map((p: { id: number }) => p.id)).toEqual([105]);
    expect((await call(sim, 'GET', `${BASE}/search/product?search=zebra`)).json).toEqual([]);
    expect((await call(sim, 'GET', `${BASE}/search/product?search=`)).json.length).toBeGreaterThan(5);
  });

  it('answers 400 without the search parameter', async () => {
    await start();
    const r = await call(sim, 'GET', `${BASE}/search/product`);
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({
      code: 'rest_missing_callback_param',
      data: { status: 400, params: ['search'] },
    });
  });

  it('a search result is a valid array filter', async () => {
    await start();
    const found = (await call(sim, 'GET', `${BASE}/search/product?search=beaded`)).json;
    const r = await create(createBody({ filter: found }));
    expect(r.status).toBe(201);
    expect(r.json.filter).toEqual(found);
  });
});

describe('badge API (cpbw/v1): authentication', () => {
  it('needs none by default', async () => {
    await start();
    expect(sim.info().badges).toEqual({ basePath: BASE, auth: { type: 'none' } });
    expect((await call(sim, 'GET', `${BASE}/badges`)).status).toBe(200);
  });

  it('Basic when configured: 401 without or with wrong credentials; created_by is the user', async () => {
    await start({ badgeAuth: { type: 'basic', username: 'shop', password: 's3cret' } });
    expect(sim.info().badges.auth).toEqual({ type: 'basic', username: 'shop', password: 's3cret' });
    const none = await call(sim, 'GET', `${BASE}/badges`);
    expect(none.status).toBe(401);
    expect(none.json).toEqual({
      code: 'rest_not_logged_in',
      message: 'You are not currently logged in.',
      data: { status: 401 },
    });
    expect(none.headers.get('www-authenticate')).toMatch(/^Basic /);
    const basic = (u: string, p: string) => ({
      Authorization: `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`,
    });
    const wrong = await call(sim, 'GET', `${BASE}/badges/1`, { headers: basic('shop', 'nope') });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe('rest_invalid_credentials');
    const bearer = await call(sim, 'GET', `${BASE}/badges`, { headers: { Authorization: 'Bearer s3cret' } });
    expect(bearer.status).toBe(401);
    const ok = await call(sim, 'GET', `${BASE}/badges`, { headers: basic('shop', 's3cret') });
    expect(ok.status).toBe(200);
    const created = await create(createBody(), basic('shop', 's3cret'));
    expect(created.status).toBe(201);
    expect(created.json.created_by).toBe('shop');
    for (const [method, path] of [
      ['POST', '/badges'],
      ['PUT', '/badges/1'],
      ['DELETE', '/badges/1'],
      ['GET', '/search/product?search=tea'],
    ]) {
      const init = method === 'GET' ? {} : { body: {} };
      expect((await call(sim, method!, `${BASE}${path}`, init)).status).toBe(401);
    }
    expect((await call(sim, 'GET', `${BASE}/badges/1`)).status).toBe(401);
    expect((await call(sim, 'GET', `${BASE}/badges/1`, { headers: basic('shop', 's3cret') })).status).toBe(
      200,
    );
  });

  it('Bearer when configured (default token sim-badge-token)', async () => {
    await start({ badges: { auth: { type: 'bearer' } } });
    expect(sim.info().badges.auth).toEqual({ type: 'bearer', token: 'sim-badge-token' });
    const none = await call(sim, 'GET', `${BASE}/badges`);
    expect(none.status).toBe(401);
    expect(none.headers.get('www-authenticate')).toMatch(/^Bearer /);
    const wrong = await call(sim, 'GET', `${BASE}/badges`, { headers: { Authorization: 'Bearer other' } });
    expect(wrong.status).toBe(401);
    expect(wrong.json.code).toBe('rest_invalid_credentials');
    const ok = await call(sim, 'GET', `${BASE}/badges`, {
      headers: { Authorization: 'Bearer sim-badge-token' },
    });
    expect(ok.status).toBe(200);
    const created = await create(createBody(), { Authorization: 'Bearer sim-badge-token' });
    expect(created.json.created_by).toBe('admin');
  });
});

describe('badge API (cpbw/v1): faults', () => {
  it('X-Sim-Fault status-5xx answers the 5xx before the operation (nothing created)', async () => {
    await start();
    const r = await create(createBody(), { 'X-Sim-Fault': 'status-5xx=503' });
    expect(r.status).toBe(503);
    expect(r.json).toMatchObject({ code: 'sim_status_5xx', data: { status: 503 } });
    expect((await call(sim, 'GET', `${BASE}/badges`)).json).toHaveLength(3);
    const plain = await call(sim, 'GET', `${BASE}/badges`, { headers: { 'X-Sim-Fault': 'status-5xx' } });
    expect(plain.status).toBe(500);
  });

  it('status-slow delays the answer', async () => {
    await start();
    const t0 = Date.now();
    const r = await call(sim, 'GET', `${BASE}/badges/1`, { headers: { 'X-Sim-Fault': 'status-slow=200' } });
    expect(r.status).toBe(200);
    // A lower bound only: a slow machine can only add to it.
    // eslint-disable-next-line no-restricted-syntax
    expect(Date.now() - t0).toBeGreaterThanOrEqual(190);
  });

  it('X-Sim-Badge-Fault garbage-body: the operation happens, the body no longer parses as JSON', async () => {
    await start();
    const r = await create(createBody(), { 'X-Sim-Badge-Fault': 'garbage-body' });
    expect(r.status).toBe(201);
    expect(r.json).toBeUndefined();
    expect(() => JSON.parse(r.text)).toThrow();
    expect(r.text.startsWith('<br />')).toBe(true);
    expect(r.headers.get('content-type')).toContain('application/json');
    const jsonPart = JSON.parse(r.text.slice(r.text.indexOf('{')));
    expect(jsonPart.id).toBe('4');
    expect((await call(sim, 'GET', `${BASE}/badges/4`)).status).toBe(200);
  });

  it('refuses fault tokens that mean nothing here', async () => {
    await start();
    const r = await call(sim, 'GET', `${BASE}/badges`, { headers: { 'X-Sim-Badge-Fault': 'drop' } });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('SIM_BAD_FAULT');
    const admin = await call(sim, 'PUT', '/_sim/badges/faults', { body: { spec: 'repeat=2' } });
    expect(admin.status).toBe(400);
  });

  it('the badge fault scope (PUT /_sim/badges/faults): status-5xx-times=2 fails two calls, then recovers', async () => {
    await start();
    const set = await call(sim, 'PUT', '/_sim/badges/faults', {
      body: { spec: 'status-5xx=502,status-5xx-times=2' },
    });
    expect(set.status).toBe(200);
    expect(set.json).toEqual({ spec: 'status-5xx=502,status-5xx-times=2', status5xxRemaining: 2 });
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await call(sim, 'GET', `${BASE}/badges`)).status);
    expect(statuses).toEqual([502, 502, 200]);
    expect((await call(sim, 'GET', '/_sim/badges/faults')).json.status5xxRemaining).toBe(0);
    await call(sim, 'PUT', '/_sim/badges/faults', { body: { spec: 'garbage-body' } });
    const garbage = await call(sim, 'GET', `${BASE}/search/product?search=tea`);
    expect(garbage.status).toBe(200);
    expect(garbage.json).toBeUndefined();
    expect((await call(sim, 'DELETE', '/_sim/badges/faults')).json).toEqual({ spec: '' });
    expect((await call(sim, 'GET', `${BASE}/search/product?search=tea`)).json).toHaveLength(1);
  });

  it('the badges.faults option applies from the start and again after a reset; global scopes do not apply', async () => {
    await start({ badges: { faults: 'status-5xx=503' }, faults: { all: 'status-5xx' } });
    expect((await call(sim, 'GET', `${BASE}/badges`)).status).toBe(503);
    await call(sim, 'DELETE', '/_sim/badges/faults');
    expect((await call(sim, 'GET', `${BASE}/badges`)).status).toBe(200);
    await call(sim, 'POST', '/_sim/reset');
    expect((await call(sim, 'GET', `${BASE}/badges`)).status).toBe(503);
  });
});

describe('badge API (cpbw/v1): admin hooks, options, reset', () => {
  it('POST /_sim/badges/{id}/expire sets valid_to to now + N seconds (updated_at unchanged)', async () => {
    await start();
    const t0 = Math.floor(Date.now() / 1000) * 1000;
    const r = await call(sim, 'POST', '/_sim/badges/2/expire', { body: { inSeconds: 60 } });
    expect(r.status).toBe(200);
    expectBadgeShape(r.json);
    const to = Date.parse(r.json.valid_to);
    expect(to).toBeGreaterThanOrEqual(t0 + 60_000);
    expect(to).toBeLessThanOrEqual(Date.now() + 60_000);
    expect(r.json.updated_at).toBe('2026-01-22 10:15:00');
    expect((await call(sim, 'GET', `${BASE}/badges/2`)).json.valid_to).toBe(r.json.valid_to);

    const before = Math.floor(Date.now() / 1000) * 1000;
    const now = await call(sim, 'POST', '/_sim/badges/1/expire');
    expect(now.status).toBe(200);
    // Between the moments before and after the call: true however long the call took.
    expect(Date.parse(now.json.valid_to)).toBeGreaterThanOrEqual(before);
    expect(Date.parse(now.json.valid_to)).toBeLessThanOrEqual(Date.now());

    const past = await call(sim, 'POST', '/_sim/badges/3/expire', {
      body: { inSeconds: -3600 * 24 * 365 * 10 },
    });
    expect(Date.parse(past.json.valid_from)).toBe(Date.parse(past.json.valid_to));

    expect((await call(sim, 'POST', '/_sim/badges/99/expire')).status).toBe(404);
    expect((await call(sim, 'POST', '/_sim/badges/1/expire', { body: { inSeconds: 'soon' } })).status).toBe(
      400,
    );
  });

  it('/_sim/reset brings back the demo badges and the id counter', async () => {
    await start();
    await call(sim, 'DELETE', `${BASE}/badges/1`);
    await create(createBody());
    await call(sim, 'POST', '/_sim/reset');
    const list = (await call(sim, 'GET', `${BASE}/badges`)).json;
    expect(list.map((b: { id: string }) => b.id)).toEqual(['1', '2', '3']);
    expect((await create(createBody())).json.id).toBe('4');
  });

  it('serves under another REST prefix; _links follow it', async () => {
    await start({ badges: { restPrefix: '/index.php/wp-json/' } });
    const base = '/index.php/wp-json/cpbw/v1';
    expect(sim.info().badges.basePath).toBe(base);
    expect((await call(sim, 'GET', `${BASE}/badges`)).status).toBe(404);
    const r = await call(sim, 'GET', `${base}/badges/1`);
    expect(r.status).toBe(200);
    expect(r.json._links.self[0].href).toBe(`${sim.url}${base}/badges/1`);
    expect(r.json._links.collection[0].href).toBe(`${sim.url}${base}/badges`);
    expect((await call(sim, 'GET', `${base}/search/product?search=tea`)).status).toBe(200);
  });

  it('refuses a REST prefix that is not path segments', async () => {
    await expect(startSim({ badges: { restPrefix: 'wp json' } })).rejects.toThrow(/restPrefix/);
    await expect(startSim({ badges: { utcOffset: '3h' } })).rejects.toThrow(/offset/);
  });

  it('without demo badges the list is empty and ids start at "1"; another site offset', async () => {
    await start({ badges: { demoBadges: false, utcOffset: '+00:00' } });
    expect((await call(sim, 'GET', `${BASE}/badges`)).json).toEqual([]);
    const r = await create(createBody({ valid_from: '2026-11-23T10:00:00+03:00' }));
    expect(r.json.id).toBe('1');
    expect(r.json.valid_from).toBe('2026-11-23T07:00:00+00:00');
  });

  it('other methods on badge paths are 405', async () => {
    await start();
    const r = await call(sim, 'PATCH', `${BASE}/badges/1`, { body: {} });
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toContain('PUT');
  });
});
