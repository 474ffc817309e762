/** Logging with MSISDN masking: the simulator prints payer numbers that look real, and logs get pasted into issues. */

export type LogSink = (line: string) => void;

/** `254708374149` → `2547****149`: enough to tell numbers apart in a log, not enough to dial. */
export function maskMsisdn(msisdn: string): string {
  if (msisdn.length < 8) return '****';
  return `${msisdn.slice(0, 4)}****${msisdn.slice(-3)}`;
}

/**
 * Masks runs of 9 to 15 digits (MSISDN-sized) inside free text such as a request path. Runs glued to
 * letters or dashes are left alone so UUID segments and receipt numbers stay readable.
 */
export function maskDigitsInText(text: string): string {
  return text.replace(/(?<![\w-])\+?\d{9,15}(?![\w-])/g, (m) => maskMsisdn(m));
}

export class Logger {
  constructor(private readonly sink: LogSink) {}

  line(message: string): void {
    const time = new Date().toISOString().slice(11, 23);
    this.sink(`[sim ${time}] ${message}`);
  }
}
