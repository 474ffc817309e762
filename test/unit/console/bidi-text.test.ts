/** How the console shows free text with its own direction (console/bidi.ts; console/dom.ts draws every text through it). */
import { describe, expect, it } from 'vitest';
import { needsIsolation, showBidiControls } from '../../../console/bidi';

describe('free text in the console cannot reorder what is shown beside it', () => {
  it('shows every bidi control character as its code point, and nothing else', () => {
    // Prepare: an override that would make "exe.gnp" read "png.exe", an isolate, the marks.
    const text = 'Payer \u202Eexe.gnp\u202C \u2067x\u2069 \u200E\u200F\u061C ok';

    // Act
    const shown = showBidiControls(text);

    // Assess
    expect(shown).toBe('Payer [U+202E]exe.gnp[U+202C] [U+2067]x[U+2069] [U+200E][U+200F][U+061C] ok');
    expect(showBidiControls('Jane Wanjiku – نجاح ✓ 👩‍💻')).toBe('Jane Wanjiku – نجاح ✓ 👩‍💻');
  });

  it('isolates right-to-left text (Arabic, Hebrew) and leaves left-to-right text as it is', () => {
    expect(needsIsolation('تمت العملية بنجاح 100')).toBe(true);
    expect(needsIsolation('שלום')).toBe(true);
    expect(needsIsolation('The service request is processed successfully.')).toBe(false);
    expect(needsIsolation('Müller Ñandú 0790***456')).toBe(false);
  });
});
