/** Keeps enough of a phone number to recognise it in logs without exposing it: 46733123459 → 4673****459. */
export function maskMsisdn(value: string | number | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  const text = String(value);
  if (text.length <= 6) return '*'.repeat(text.length);
  return `${text.slice(0, 4)}${'*'.repeat(Math.max(4, text.length - 7))}${text.slice(-3)}`;
}

/** Provider free text (messages, status details) with every phone-number-like run of 9+ digits masked. */
export function maskMsisdnsIn(text: string): string {
  return text.replace(/\+?\d{9,15}/g, (run) => maskMsisdn(run) ?? run);
}
