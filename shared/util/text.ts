/**
 * One rule for control characters, wherever text from outside is stored, compared or shown (callbacks'
 * ids, registrations, an operator's resolution and notes, console queries, statement file names, account
 * names): C0 controls (tab, line feed and carriage return included: every caller takes one line of text),
 * DEL, C1 controls, and the two Unicode line terminators U+2028 and U+2029 (JavaScript, browsers and log
 * viewers break lines at them) are refused. They have no place in an id or a note, and they forge lines in
 * logs, terminals and views. Printable text is kept, spaces and non-Latin letters included; a stricter id
 * rule (badge ids: no spaces, no format characters) adds its own on top of this one.
 */
// eslint-disable-next-line no-control-regex -- the point is to find control characters
const CONTROL_CHARACTERS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/;

export function hasControlCharacters(value: string): boolean {
  return CONTROL_CHARACTERS.test(value);
}

/**
 * Unicode format characters (`\p{Cf}`): direction overrides and isolates (U+202A–U+202E, U+2066–U+2069),
 * zero-width spaces and joiners, the byte-order mark, the soft hyphen. Invisible, or they change how the
 * text around them is shown: `INV<U+202E>4321` reads as `INV1234`.
 */
const FORMAT_CHARACTER = /\p{Cf}/u;

export function hasFormatCharacters(value: string): boolean {
  return FORMAT_CHARACTER.test(value);
}

/**
 * What a partner registers (its reference and externalId, given joined) that would look like another id:
 * a format character, or a form other than Unicode's NFKC (full-width `ＩＮＶ１` for `INV1`, an accent as a
 * separate mark): two transactions an operator would read as one. Ids a provider sends are kept as sent
 * (refusing a confirmation for its customer-typed account number would lose the payment).
 */
export function lookalikeProblem(ids: string): string | undefined {
  return FORMAT_CHARACTER.test(ids) || ids.normalize('NFKC') !== ids
    ? 'bidi, invisible or full-width characters'
    : undefined;
}

/** References and ids become storage keys: bounded, without control characters. */
export const MAX_ID_LENGTH = 200;

/** What is wrong with an id the relay would store as a key (`what` names it in the message), if anything. */
export function idProblem(what: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  if (value.length === 0 || value.length > MAX_ID_LENGTH)
    return `${what} must be 1 to ${MAX_ID_LENGTH} characters (got ${value.length})`;
  if (hasControlCharacters(value)) return `${what} contains control characters`;
  // Every URL parser (browsers, curl, the local server) resolves a "." or ".." path segment away: a
  // transaction with such an id could never be read, checked or resolved.
  if (value === '.' || value === '..') return `${what} cannot be "${value}" (a URL path resolves it away)`;
  return undefined;
}
