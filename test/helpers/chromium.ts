/**
 * The Chromium the browser tests drive: Debian's headless shell (`apt-get install chromium-headless-shell`,
 * /usr/bin/chromium-headless-shell), else Debian's full Chromium (/usr/bin/chromium), or the one
 * CHROMIUM_PATH names; .ci/run installs both. playwright-core never downloads a browser, and its own
 * "executable doesn't exist" names no fix: a missing one fails with the command that installs it.
 *
 * The headless shell is the same Blink and V8 without the browser's UI layers, and what Playwright itself
 * runs for headless tests. Measured over console.test.ts and exports.test.ts (18 tests, same machine,
 * one after the other): Chromium's processes took 40.8 s of CPU as the full browser, 20.7 s as the shell.
 */
import { existsSync } from 'node:fs';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Where Debian's packages put the two Chromium builds, the lighter first. */
export const DEBIAN_CHROMIUMS = ['/usr/bin/chromium-headless-shell', '/usr/bin/chromium'] as const;

export class ChromiumMissingError extends Error {
  constructor(readonly path: string) {
    super(
      `Chromium not found at ${path}: the console's browser tests drive a real Chromium. ` +
        `Install it (Debian: sudo apt-get install chromium-headless-shell, which puts it at ` +
        `${DEBIAN_CHROMIUMS[0]}; Debian's chromium at ${DEBIAN_CHROMIUMS[1]} works too) ` +
        `or point CHROMIUM_PATH at a Chromium or Chrome binary (README.md#quick-start).`,
    );
    this.name = 'ChromiumMissingError';
  }
}

/**
 * Where the tests look for Chromium: CHROMIUM_PATH when set, else the first of Debian's that is installed
 * (the headless shell when neither is, for the error to name).
 */
export function chromiumPath(
  env: NodeJS.ProcessEnv = process.env,
  installed: (path: string) => boolean = existsSync,
): string {
  return env.CHROMIUM_PATH || (DEBIAN_CHROMIUMS.find(installed) ?? DEBIAN_CHROMIUMS[0]);
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
