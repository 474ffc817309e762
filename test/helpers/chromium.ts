/**
 * The Chromium the browser tests drive: Debian's (`apt-get install chromium`, /usr/bin/chromium; .ci/run
 * installs it), or the one CHROMIUM_PATH names. playwright-core never downloads a browser, and its own
 * "executable doesn't exist" names no fix: a missing one fails with the command that installs it.
 */
import { existsSync } from 'node:fs';
import { type BrowserContext, chromium } from 'playwright-core';

export const DEFAULT_CHROMIUM = '/usr/bin/chromium';

export class ChromiumMissingError extends Error {
  constructor(readonly path: string) {
    super(
      `Chromium not found at ${path}: the console's browser tests drive a real Chromium. ` +
        `Install it (Debian/Ubuntu: sudo apt-get install chromium, which puts it at ${DEFAULT_CHROMIUM}) ` +
        `or point CHROMIUM_PATH at a Chromium or Chrome binary (README.md#quick-start).`,
    );
    this.name = 'ChromiumMissingError';
  }
}

/** Where the tests look for Chromium: CHROMIUM_PATH when set, else Debian's. */
export function chromiumPath(env: NodeJS.ProcessEnv = process.env): string {
  return env.CHROMIUM_PATH || DEFAULT_CHROMIUM;
}

/** A headless Chromium on a fresh profile directory (playwright passes it as --user-data-dir). */
export async function launchChromium(
  profile: string,
  options: { executablePath?: string; viewport?: { width: number; height: number } } = {},
): Promise<BrowserContext> {
  const executablePath = options.executablePath ?? chromiumPath();
  if (!existsSync(executablePath)) throw new ChromiumMissingError(executablePath);
  return chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: options.viewport ?? { width: 1280, height: 800 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}
