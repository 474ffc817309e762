/**
 * The Chromium the browser tests drive: Debian's (`apt-get install chromium`, /usr/bin/chromium; .ci/run
 * installs it), or the one CHROMIUM_PATH names. playwright-core never downloads a browser, and its own
 * "executable doesn't exist" names no fix: a missing one fails with the command that installs it.
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

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

const ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];
const VIEWPORT = { width: 1280, height: 800 };

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
    viewport: options.viewport ?? VIEWPORT,
    args: ARGS,
  });
}

let shared: Promise<Browser> | undefined;

/**
 * A fresh browser context (its own cookies, storage, cache and downloads: a fresh profile) in the one
 * headless Chromium of this process. Starting Chromium cost each browser test file about 1 s of CPU and,
 * on two loaded cores, tens of seconds of wall time; the test files of a worker run one after another in
 * one process (vitest.config.ts, isolate: false), so they share it. Nothing closes it: playwright kills
 * the browsers it launched when the process exits, and Chromium ends with its pipe to the process. One
 * that crashed or was closed is started again for the next file.
 */
export async function chromiumContext(): Promise<BrowserContext> {
  const before = shared;
  // Chained on the one before, so that two files asking at once share one launch.
  shared = (async () => {
    const running = await before?.catch(() => undefined);
    if (running?.isConnected()) return running;
    const executablePath = chromiumPath();
    if (!existsSync(executablePath)) throw new ChromiumMissingError(executablePath);
    return chromium.launch({ executablePath, headless: true, args: ARGS });
  })();
  return (await shared).newContext({ viewport: VIEWPORT, acceptDownloads: true, reducedMotion: 'reduce' });
}
