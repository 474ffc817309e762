/** Text with a direction of its own, as the console shows it (import-free: unit-tested outside a browser). */

/**
 * The characters that reorder the text around them (Unicode's Bidi_Control: the embeddings and overrides
 * U+202A–U+202E, the isolates U+2066–U+2069, the marks U+200E, U+200F and U+061C). A provider's or a
 * sender's text carrying one (an Airtel message, a Daraja ResultDesc, a payer's name) could make a cell
 * read otherwise than it is: shown as their code points instead.
 */
const BIDI_CONTROL = /\p{Bidi_Control}/gu;

/** Right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko…, their presentation forms, and the rest). */
const RIGHT_TO_LEFT = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc]|[\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;

/** A text with its bidirectional control characters shown as code points, e.g. `[U+202E]`. */
export function showBidiControls(text: string): string {
  return text.replace(
    BIDI_CONTROL,
    (c) => `[U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}]`,
  );
}

/** Whether a text has its own direction to keep to itself (right-to-left letters). */
export function needsIsolation(text: string): boolean {
  return RIGHT_TO_LEFT.test(text);
}
