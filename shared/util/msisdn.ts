import { createHmac } from 'node:crypto';

/**
 * Country calling codes of the countries the relay's providers serve (MTN MoMo, Airtel Money, M-Pesa), by
 * ISO 3166 alpha-2 code: they turn a national number (0708374149) into its international form.
 */
const CALLING_CODES: Readonly<Record<string, string>> = {
  BJ: '229',
  CD: '243',
  CG: '242',
  CI: '225',
  CM: '237',
  GA: '241',
  GH: '233',
  GN: '224',
  KE: '254',
  LR: '231',
  MG: '261',
  MW: '265',
  NE: '227',
  NG: '234',
  RW: '250',
  SC: '248',
  SS: '211',
  SZ: '268',
  TD: '235',
  TZ: '255',
  UG: '256',
  ZA: '27',
  ZM: '260',
};

/** Currencies used by one country only: the country they stand for (XOF, XAF, USD, EUR name none). */
const CURRENCY_COUNTRY: Readonly<Record<string, string>> = {
  CDF: 'CD',
  GHS: 'GH',
  GNF: 'GN',
  KES: 'KE',
  LRD: 'LR',
  MGA: 'MG',
  MWK: 'MW',
  NGN: 'NG',
  RWF: 'RW',
  SCR: 'SC',
  SSP: 'SS',
  SZL: 'SZ',
  TZS: 'TZ',
  UGX: 'UG',
  ZAR: 'ZA',
  ZMW: 'ZM',
};

/** The calling code of a country (ISO alpha-2), else of the one country a currency stands for. */
export function callingCodeOf(place: {
  country?: string | undefined;
  currency?: string | undefined;
}): string | undefined {
  const country = place.country ?? (place.currency ? CURRENCY_COUNTRY[place.currency] : undefined);
  return country && Object.hasOwn(CALLING_CODES, country) ? CALLING_CODES[country] : undefined;
}

/** Spaces, dots, dashes, slashes and parentheses people write between digits. */
const SEPARATORS = /[\s().\-/]/g;

/** Whether a text is written like a phone number: digits and separators, optionally after + or 00. */
export function looksLikeMsisdn(text: string): boolean {
  const compact = text.replace(SEPARATORS, '');
  return /^\+?\d{6,15}$/.test(compact) || /^00\d{6,15}$/.test(compact);
}

/**
 * A phone number in its international form, digits only (E.164 without the +), from any common spelling:
 * +254 708 374 149, 00254708374149, 254708374149, and — with the `callingCode` of the account's country —
 * the national forms 0708374149, 0708-374-149 and 708374149. The rule: a leading + or 00 means
 * international; otherwise a leading 0 (the trunk prefix) is replaced by the calling code; otherwise a
 * number that already starts with the calling code and has at least 8 digits after it is international;
 * otherwise a number of 7 to 10 digits is national and gets the calling code. Without a calling code the
 * digits are taken as international (a 0-prefixed number then has no international form: undefined).
 * Undefined for anything that is not 6 to 15 digits.
 */
export function normalizeMsisdn(text: string, callingCode?: string): string | undefined {
  const compact = text.replace(SEPARATORS, '');
  const international = /^(?:\+|00)(\d{6,15})$/.exec(compact);
  if (international) return international[1];
  if (!/^\d{6,15}$/.test(compact)) return undefined;
  if (compact.startsWith('0')) {
    if (!callingCode) return undefined;
    const full = callingCode + compact.replace(/^0+/, '');
    return full.length <= 15 ? full : undefined;
  }
  if (!callingCode) return compact;
  if (compact.startsWith(callingCode) && compact.length - callingCode.length >= 8) return compact;
  if (compact.length >= 7 && compact.length <= 10 && (callingCode + compact).length <= 15)
    return callingCode + compact;
  return compact;
}

/**
 * The search key of a phone number: HMAC-SHA256 of its international digits, keyed with the relay's
 * `management.searchKey`, hex. Stored instead of the number for exact search; without the key nobody can
 * test guesses against it (a plain hash of a 12-digit number is reversed by trying them all).
 */
export function msisdnSearchHash(searchKey: string, e164Digits: string): string {
  return createHmac('sha256', searchKey).update(`msisdn:${e164Digits}`).digest('hex');
}
