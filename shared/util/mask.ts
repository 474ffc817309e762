/**
 * Daraja's C2B callbacks (since 2025) carry MSISDN as the SHA-256 of the number, 64 hex digits (a production
 * confirmation carried `"MSISDN": "94c392c311d5…c68a88"`: Byte-Barn/mpesakit issue #103). It is no
 * safer than the number: hashing the ~2e8 numbers of a country finds it in seconds. This is the one
 * recogniser of that form.
 */
export function isHashedMsisdn(value: string): boolean {
  return /^[0-9a-f]{64}$/i.test(value.trim());
}

/**
 * The party `idType` of a hashed number: a consumer may match it against the SHA-256 of its own customers'
 * numbers, never dial or text it (an `MSISDN` party is a number to notify).
 */
export const HASHED_MSISDN_ID_TYPE = 'MSISDN_SHA256';

/**
 * How a hashed number is shown: not one hex digit of it. Even 4 would narrow the ~2e8 numbers it may be
 * to ~3,000, a far closer guess than a masked number's 100,000; and its digits shown the way a number's are
 * ("4392****…888") would pass for a phone number.
 */
export const MASKED_HASHED_MSISDN = 'sha256:(masked)';

/**
 * The one way the relay shows a phone number: its digits (a leading +, spaces and dashes dropped) with the
 * first up to 4 and the last 3 kept and at least 4 hidden, so a short national number keeps fewer at the
 * start: 46733123459 → 4673****459, 254708374149 → 2547*****149, 0708374149 → 070****149, 752123904 →
 * 75****904. Six digits or fewer are hidden entirely. A value already masked (Daraja sends 25470****149) is
 * kept as it is; a value without digits has nothing to hide; a hashed number (isHashedMsisdn) is shown as
 * MASKED_HASHED_MSISDN.
 */
export function maskMsisdn(value: string | number | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if (text.includes('*')) return text;
  if (isHashedMsisdn(text)) return MASKED_HASHED_MSISDN;
  const digits = text.replace(/\D/g, '');
  if (!digits) return text;
  if (digits.length <= 6) return '*'.repeat(digits.length);
  const start = Math.min(4, digits.length - 7);
  return `${digits.slice(0, start)}${'*'.repeat(digits.length - start - 3)}${digits.slice(-3)}`;
}

/**
 * A phone number inside text: 9 to 15 digits, optionally after a +, possibly grouped by single spaces or
 * dashes into groups of 3 or more after the first (+254 708 374 149, 0708-374-149; a date 2026-11-28 is no
 * number), standing alone. A run glued to letters, digits, _ or * is part of something else (a
 * ConversationID AG_20191219_0000579752, a CheckoutRequestID ws_CO_191220191020363925, an already masked
 * number) and is left alone, and so is a run of more than 15 digits.
 */
const NUMBER_IN_TEXT = /(?<![\w*+])\+?\d+(?:[ -]\d{3,})*(?![\w*])/g;

/** Provider free text (messages, status details, notes) with every phone-number-like run masked. */
export function maskMsisdnsIn(text: string): string {
  return text.replace(NUMBER_IN_TEXT, (run) => {
    // An international 00 prefix is no part of the number's 9 to 15 digits.
    const digits = run.replace(/\D/g, '').replace(/^00/, '').length;
    return digits >= 9 && digits <= 15 ? maskMsisdn(run)! : run;
  });
}

/**
 * The value of a phone-number field: masked whole when it is a number however it is grouped (07 08 37 41
 * 49, +254-708-374149) or a hashed number, else the numbers in it ("254708374149 - Jane Doe"); a short
 * code (600310), a name or an id of another type stays.
 */
function maskPhoneValue(text: string): string {
  const digits = text.replace(/[\s().\-/]/g, '');
  return /^(?:\+|00)?\d{9,15}$/.test(digits) || isHashedMsisdn(text)
    ? maskMsisdn(text)!
    : maskMsisdnsIn(text);
}

/** A scalar of a phone-number field (a JSON number too: Daraja's PhoneNumber 254708374149). */
function maskScalar(value: unknown): unknown {
  if (typeof value === 'number' || typeof value === 'bigint') {
    const text = String(value);
    const masked = maskPhoneValue(text);
    return masked === text ? value : masked;
  }
  return typeof value === 'string' ? maskPhoneValue(value) : value;
}

/**
 * A copy of a parsed payload with the phone numbers of the members named `fields` masked: an object member
 * (`"MSISDN": "254708374149"`, `"partyId": "46733123459"`) or a Key/Value item whose Key (or Name) is one
 * of them (`{"Key": "PhoneNumber", "Value": 254708374149}`). Only the numbers of those members are masked
 * (a short code "600310" or a name stays), so ids elsewhere — a ConversationID, a receipt, a MoMo
 * financialTransactionId of 9 digits — are never taken for numbers. Members are copied as own properties
 * (a "__proto__" member stays a member).
 */
export function maskPhoneFields(
  value: unknown,
  fields: ReadonlySet<string>,
  /** What the other strings become (a partner's own JSON: free text, maskMsisdnsIn). @default unchanged */
  others?: (text: string) => string,
): unknown {
  if (Array.isArray(value)) return value.map((item) => maskPhoneFields(item, fields, others));
  if (typeof value === 'string') return others ? others(value) : value;
  if (!value || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const itemName = record.Key ?? record.Name;
  const isPhoneItem = typeof itemName === 'string' && fields.has(itemName) && 'Value' in record;
  return Object.fromEntries(
    Object.entries(record).map(([key, member]) => [
      key,
      fields.has(key) || (isPhoneItem && key === 'Value')
        ? maskScalar(member)
        : maskPhoneFields(member, fields, others),
    ]),
  );
}

/**
 * A partner's externalId as answers show it. It is an id (a link key such as `ORDER-123456789` or a
 * 9-digit invoice number, searched for whole), so its digits stay, unless it is free text (it holds a
 * space: "customer 254708374149") or a phone number written as one (`+254708374149`).
 */
export function maskPartnerId(id: string): string {
  const text = id.trim();
  return /\s/.test(text) || text.startsWith('+') ? maskPhoneValue(id) : id;
}

/**
 * A partner's own JSON (a registration's metadata) as answers show it: members named as a provider names a
 * phone number masked whole (maskPhoneFields), and every other string as free text (maskMsisdnsIn), since
 * a partner may write a number anywhere ("note": "call +254 708 374 149").
 */
export function maskPartnerJson(value: unknown, fields: ReadonlySet<string>): unknown {
  return maskPhoneFields(value, fields, maskMsisdnsIn);
}

/**
 * A stored body (as text) with its phone numbers masked: a JSON body through `maskPhoneFields` (written
 * again only when a number was masked, so an untouched body is shown byte for byte), any other text
 * (form encoding, XML, a body that is not valid JSON) through `maskMsisdnsIn`.
 */
export function maskPhoneFieldsInText(body: string, fields: ReadonlySet<string>): string {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return maskMsisdnsIn(body);
  }
  const masked = maskPhoneFields(parsed, fields);
  const text = JSON.stringify(masked);
  return text === JSON.stringify(parsed) ? body : text;
}

/** Whether an attribute holds a phone number: a repeated key is kept as `Key#2`, `Key#3` (daraja/normalize.ts). */
export function isPhoneAttribute(name: string, fields: ReadonlySet<string>): boolean {
  return fields.has(name.replace(/#\d+$/, ''));
}

/** Attributes (name → value) with the values of the phone-number fields masked. */
export function maskPhoneAttributes(
  attributes: Record<string, string>,
  fields: ReadonlySet<string>,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(attributes).map(([name, value]) => [
      name,
      isPhoneAttribute(name, fields) ? maskPhoneValue(value) : value,
    ]),
  );
}
