import { describe, expect, it } from 'vitest';
import {
  type Badge,
  changedFields,
  diffBadges,
  dueTransitions,
  isActiveAt,
  marksAfterRead,
  nextTransitionAt,
  parseBadge,
  MAX_BADGE_ID_CHARS,
  badgeIdProblem,
  parseBadgeList,
} from '../../../shared/domain/badges';

const API_BADGE = {
  id: '7',
  badge_name: 'Sale',
  badge_type: 'image',
  filter: [{ id: 101, name: 'Kitenge Shirt', sku: 'KIT-SHIRT-01', image: 'https://shop.example/a.jpg' }],
  badge_style: '<span>Sale</span>',
  badge_settings: { display: 'block', justify_content: 'center' },
  priority: '1',
  status: '1',
  created_by: 'admin',
  valid_from: '2026-11-23T13:00:00+03:00',
  valid_to: '2026-11-30T00:00:00+03:00',
  created_at: '2026-11-23 12:00:00',
  updated_at: '2026-11-23 12:00:00',
  _links: { self: [{ href: 'https://shop.example/wp-json/cpbw/v1/badges/7' }] },
};

const badge = (overrides: Record<string, unknown> = {}): Badge => {
  const parsed = parseBadge({ ...API_BADGE, ...overrides });
  if (!parsed.ok) throw new Error(parsed.error);
  return parsed.value;
};

describe('badges: reading the API', () => {
  it('normalizes a badge: validity in UTC, _links dropped, numbers as the API types them', () => {
    // Prepare / Act
    const read = badge({ id: 7, priority: 2, status: 0 });
    // Assess
    expect(read).toMatchObject({
      id: '7',
      priority: '2',
      status: '0',
      valid_from: '2026-11-23T10:00:00.000Z',
    });
    expect(read).not.toHaveProperty('_links');
  });

  it.each([
    ['absent', undefined],
    ['empty', ''],
    ['null', null],
  ])('reads a %s validity bound as open (null)', (_, value) => {
    expect(badge({ valid_from: value, valid_to: value })).toMatchObject({ valid_from: null, valid_to: null });
  });

  it('accepts the three filter forms', () => {
    expect(badge({ filter: 'all' }).filter).toBe('all');
    expect(badge({ filter: 12 }).filter).toBe(12);
    expect(badge().filter).toEqual([API_BADGE.filter[0]]);
  });

  it.each([
    ['not an array', { badges: [] }],
    ['a filter of the wrong type', [{ ...API_BADGE, filter: { all: true } }]],
    ['two badges with one id', [API_BADGE, API_BADGE]],
  ])('refuses the whole list when it is %s', (_, input) => {
    expect(parseBadgeList(input).ok).toBe(false);
  });

  it.each([
    ['missing', undefined, 'missing'],
    ['an object', { id: 1 }, 'not-text'],
    ['empty', '', 'empty'],
    ['blank', '  ', 'not-printable'],
    ['over the limit', '7'.repeat(MAX_BADGE_ID_CHARS + 1), 'too-long'],
    ['over 2 KB', 'x'.repeat(3000), 'too-long'],
    ['a NUL', 'a\u0000', 'not-printable'],
    ['a newline', '1\n2', 'not-printable'],
    ['a bidi override', '1\u202e2', 'not-printable'],
  ])('leaves out a badge whose id is %s, refused, and reads the others', (_, id, reason) => {
    // Act
    const read = parseBadgeList([
      { ...API_BADGE, id: '1' },
      { ...API_BADGE, id },
    ]);
    // Assess
    expect(read.ok && read.value.map((b) => b.id)).toEqual(['1']);
    const [refused] = read.ok ? (read.refused ?? []) : [];
    expect(refused).toMatchObject({ reason, key: expect.stringMatching(/^[0-9a-f]{16}$/) });
    expect(refused!.excerpt.length).toBeLessThan(80);
    expect(refused!.excerpt).not.toMatch(/\p{Cc}|\u202e/u);
  });

  it.each(['__proto__', 'constructor', 'prototype', 'hasOwnProperty', '1', 'slug-2.b', MAX_BADGE_ID_CHARS])(
    'takes %s as a badge id',
    (id) => {
      const text = typeof id === 'number' ? '7'.repeat(id) : id;
      expect(badgeIdProblem(text)).toBeUndefined();
    },
  );
});

describe('badges: reading validity dates', () => {
  it('reads a bare "YYYY-MM-DD HH:mm:ss" validity bound as UTC whatever the machine time zone', () => {
    // Prepare
    const tz = process.env.TZ;
    process.env.TZ = 'Pacific/Kiritimati';
    try {
      // Act
      const read = badge({ valid_from: '2026-11-23 10:00:00', valid_to: '2026-11-24' });
      // Assess
      expect(read.valid_from).toBe('2026-11-23T10:00:00.000Z');
      expect(read.valid_to).toBe('2026-11-24T00:00:00.000Z');
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });

  it('reads offsets and Z exactly', () => {
    expect(badge({ valid_from: '2026-11-23T13:00:00+03:00' }).valid_from).toBe('2026-11-23T10:00:00.000Z');
    expect(badge({ valid_from: '2026-11-23T10:00:00.250Z' }).valid_from).toBe('2026-11-23T10:00:00.250Z');
    expect(badge({ valid_from: '2026-11-23T05:30:00-0430' }).valid_from).toBe('2026-11-23T10:00:00.000Z');
  });

  it.each([
    ['trailing junk', '2026-11-23junk'],
    ['a day the month does not have', '2026-02-30T10:00:00Z'],
    ['the zero date', '0000-00-00 00:00:00'],
    ['a date-time with T but no offset', '2026-11-23T10:00:00'],
    ['an hour out of range', '2026-11-23 24:00:00'],
    ['words', 'next tuesday'],
  ])('reads %s as no bound and reports it, keeping the list', (_, value) => {
    // Prepare
    const input = [
      { ...API_BADGE, valid_to: value },
      { ...API_BADGE, id: '8' },
    ];
    // Act
    const parsed = parseBadgeList(input);
    // Assess
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(parsed.value[0]!.valid_to).toBeNull();
    expect(parsed.value[1]!.valid_to).toBe('2026-11-29T21:00:00.000Z');
    expect(parsed.invalidDates).toEqual([{ badgeId: '7', field: 'valid_to', value }]);
  });
});

describe('badges: diff of two reads', () => {
  const before = new Map([
    ['7', badge()],
    ['8', badge({ id: '8' })],
  ]);

  it('finds a created, an updated (with its changed fields) and a missing badge', () => {
    // Prepare
    const list = [badge({ badge_name: 'Big sale', updated_at: '2026-11-24 08:00:00' }), badge({ id: '9' })];
    // Act
    const { changes, missing } = diffBadges(before, list);
    // Assess
    expect(changes.map((c) => [c.kind, c.badgeId])).toEqual([
      ['updated', '7'],
      ['created', '9'],
    ]);
    expect(changes[0]).toMatchObject({ changedFields: ['badge_name', 'updated_at'] });
    expect(missing).toEqual(['8']);
  });

  it('sees no change when only key order or the offset of a date differs', () => {
    const same = badge({
      badge_settings: { justify_content: 'center', display: 'block' },
      valid_from: '2026-11-23T10:00:00Z',
    });
    expect(changedFields(badge(), same)).toEqual([]);
    expect(diffBadges(before, [same, badge({ id: '8' })])).toEqual({ changes: [], missing: [] });
  });

  it('names a changed filter and validity', () => {
    const after = badge({ filter: 'all', valid_to: '' });
    expect(changedFields(badge(), after)).toEqual(['filter', 'valid_to']);
  });
});

describe('badges: validity', () => {
  const b = badge(); // 10:00Z → 2026-11-29T21:00Z
  const none = { activated: null, expired: null };

  it('is active between its bounds, open bounds included', () => {
    expect(isActiveAt(b, '2026-11-23T09:59:59.000Z')).toBe(false);
    expect(isActiveAt(b, '2026-11-23T10:00:00.000Z')).toBe(true);
    expect(isActiveAt(b, '2026-11-29T21:00:00.000Z')).toBe(false);
    expect(isActiveAt(badge({ valid_from: '', valid_to: '' }), '2030-01-01T00:00:00.000Z')).toBe(true);
  });

  it('has an activation due once valid_from passed, until it is marked', () => {
    expect(dueTransitions(b, none, '2026-11-23T09:59:59.000Z')).toEqual([]);
    expect(dueTransitions(b, none, '2026-11-23T10:00:00.000Z')).toEqual([
      { kind: 'activated', at: '2026-11-23T10:00:00.000Z' },
    ]);
    expect(dueTransitions(b, { activated: b.valid_from, expired: null }, '2026-11-24T00:00:00.000Z')).toEqual(
      [],
    );
  });

  it('has both due, in order, when both bounds passed since the last look', () => {
    expect(dueTransitions(b, none, '2026-12-01T00:00:00.000Z').map((t) => t.kind)).toEqual([
      'activated',
      'expired',
    ]);
  });

  it('names the next bound to pass', () => {
    expect(nextTransitionAt(b, none, '2026-11-23T09:00:00.000Z')).toBe('2026-11-23T10:00:00.000Z');
    expect(nextTransitionAt(b, { activated: b.valid_from, expired: null }, '2026-11-23T11:00:00.000Z')).toBe(
      '2026-11-29T21:00:00.000Z',
    );
    expect(
      nextTransitionAt(b, { activated: b.valid_from, expired: b.valid_to }, '2026-12-01T00:00:00.000Z'),
    ).toBe(null);
  });

  it('marks a bound already past when the badge is first read (no event for it), a future one not', () => {
    expect(marksAfterRead(b, undefined, '2026-11-24T00:00:00.000Z')).toEqual({
      activated: '2026-11-23T10:00:00.000Z',
      expired: null,
    });
  });

  it('keeps the marks of an unchanged bound and resets a bound moved to the future', () => {
    const previous = { badge: b, activated: b.valid_from, expired: null };
    const moved = badge({ valid_from: '2026-11-25T00:00:00Z' });
    expect(marksAfterRead(b, previous, '2026-11-24T00:00:00.000Z')).toEqual({
      activated: b.valid_from,
      expired: null,
    });
    expect(marksAfterRead(moved, previous, '2026-11-24T00:00:00.000Z')).toEqual({
      activated: null,
      expired: null,
    });
  });
});
