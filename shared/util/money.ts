/** Decimal strings as providers send them ("100", "100.00", 1.0) reduced to one canonical form. */
export function toDecimalString(value: string | number): string | undefined {
  const text = typeof value === 'number' ? (Number.isFinite(value) ? String(value) : '') : value.trim();
  if (!/^-?\d+(\.\d+)?$/.test(text)) return undefined;
  const negative = text.startsWith('-');
  const [intPart = '0', fraction = ''] = text.replace('-', '').split('.');
  const int = intPart.replace(/^0+(?=\d)/, '');
  const frac = fraction.replace(/0+$/, '');
  const canonical = frac ? `${int}.${frac}` : int;
  return negative && canonical !== '0' ? `-${canonical}` : canonical;
}

export function sameAmount(a: string, b: string): boolean {
  return toDecimalString(a) === toDecimalString(b);
}
