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

/** A decimal string as an integer count of 10^-scale units (exact: floats lose cents on 100.1 - 50.05). */
function scaled(value: string, scale: number): bigint {
  const canonical = toDecimalString(value) ?? '0';
  const negative = canonical.startsWith('-');
  const [int = '0', fraction = ''] = canonical.replace('-', '').split('.');
  const units = BigInt(int + fraction.padEnd(scale, '0'));
  return negative ? -units : units;
}

const fractionDigits = (value: string) => (toDecimalString(value) ?? '').split('.')[1]?.length ?? 0;

/** a + b - c… exactly, canonical ("100" - "40.5" = "59.5"). */
export function decimalSum(...terms: { value: string; sign: 1 | -1 }[]): string {
  const scale = Math.max(0, ...terms.map((t) => fractionDigits(t.value)));
  const total = terms.reduce((sum, t) => sum + BigInt(t.sign) * scaled(t.value, scale), 0n);
  const negative = total < 0n;
  const digits = (negative ? -total : total).toString().padStart(scale + 1, '0');
  const text = scale ? `${digits.slice(0, -scale)}.${digits.slice(-scale)}` : digits;
  return toDecimalString(`${negative ? '-' : ''}${text}`)!;
}

/** -1, 0 or 1 as a is below, equal to or above b, exactly (decimal strings). */
export function compareAmounts(a: string, b: string): -1 | 0 | 1 {
  const scale = Math.max(fractionDigits(a), fractionDigits(b));
  const diff = scaled(a, scale) - scaled(b, scale);
  return diff < 0n ? -1 : diff > 0n ? 1 : 0;
}
