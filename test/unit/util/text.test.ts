/**
 * The one control-character rule (shared/util/text.ts), on its boundaries: every caller takes one line of
 * printable text, so C0 (tab and newlines included), DEL, C1 and the Unicode line terminators are refused,
 * and the printable characters right next to them are kept.
 */
import { describe, expect, it } from 'vitest';
import { badgeIdProblem } from '../../../shared/domain/badges';
import { hasControlCharacters, idProblem, lookalikeProblem } from '../../../shared/util/text';

const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).padStart(4, '0')}`;

describe('the control-character rule', () => {
  it('refuses C0 (tab, LF, CR included), DEL, C1 and the line and paragraph separators', () => {
    // Prepare
    const refused = [
      '\u0000',
      '\t',
      '\n',
      '\r',
      '\u001b',
      '\u001f',
      '\u007f',
      '\u0080',
      '\u0085',
      '\u009f',
      '\u2028',
      '\u2029',
    ];
    for (const c of refused) {
      // Act, Assess
      expect(hasControlCharacters(`ref${c}1`), hex(c)).toBe(true);
      expect(idProblem('reference', `ref${c}1`), hex(c)).toBe('reference contains control characters');
    }
  });

  it('keeps the printable characters on either side of each range', () => {
    // Prepare
    const kept = [' ', '~', '\u00a0', 'é', '\u2027', '\u2030', 'Ф', '支付', '😀'];
    for (const c of kept) {
      // Act, Assess
      expect(hasControlCharacters(`ref${c}1`), hex(c)).toBe(false);
    }
    expect(hasControlCharacters('MTN support ticket 4411 confirms the payment')).toBe(false);
  });

  it('is the control part of the stricter badge-id rule, which also refuses spaces and format characters', () => {
    // Act, Assess
    for (const c of ['\t', '\u007f', '\u0085', '\u2028'])
      expect(badgeIdProblem(`b${c}1`), hex(c)).toBe('not-printable');
    for (const c of [' ', '\u00a0', '\u202e', '\u200b'])
      expect(badgeIdProblem(`b${c}1`), hex(c)).toBe('not-printable');
    expect(badgeIdProblem('shop-42é')).toBeUndefined();
  });
});

describe('the id rule', () => {
  it('refuses "." and "..", which a URL path resolves away, and keeps ids that only contain dots', () => {
    // Act, Assess
    expect(idProblem('the reference', '.')).toMatch(/cannot be "\."/);
    expect(idProblem('the reference', '..')).toMatch(/cannot be "\.\."/);
    for (const kept of ['...', '.a', 'a..b', 'INV.2026.11'])
      expect(idProblem('the reference', kept), kept).toBeUndefined();
  });
});

describe('the lookalike rule for what a partner registers', () => {
  it('refuses direction overrides, zero-width characters, full-width letters and separate accents', () => {
    // Act
    const refused = ['INV\u202E4321', 'INV\u200B1', 'INV\u20661', 'ＩＮＶ１', 'CAFE\u0301', '\uFEFFINV1'].map(
      lookalikeProblem,
    );
    // Assess
    expect(new Set(refused)).toEqual(new Set(['bidi, invisible or full-width characters']));
  });

  it('keeps plain, accented and non-Latin ids', () => {
    // Act
    const kept = ['INV-1234', 'ws_CO_191220191020363925', 'CAFÉ-é', 'ገበያ-12', '注文-7', 'Zahlung ß'].map(
      lookalikeProblem,
    );
    // Assess
    expect(kept).toEqual(kept.map(() => undefined));
  });
});
