/**
 * What the console's browser tests share: a real Chromium (a fresh browser context for the file in the
 * worker's one Chromium), tabs that say
 * what went wrong in them, a real local relay (DynamoDB Local) signed into by named people, and the
 * waits that make the tests independent of the machine's speed (conditions only, bounded by WAIT_MS so a
 * hang on a saturated machine ends). Registering the hooks here keeps each file to what it tests.
 */
import { readFileSync } from 'node:fs';
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, expect, vi } from 'vitest';
import { chromiumContext } from '../helpers/chromium';
import { ADMIN_ACTOR, ADMIN_TOKEN, startTestRelay, TEST_SEARCH_KEY, type TestRelay } from '../helpers/relay';

/**
 * Waits on conditions only; this bounds a hang on a saturated machine (the whole suite on two loaded
 * cores: a wait that normally takes a second can take tens).
 */
export const WAIT_MS = 60_000;

type Role = 'viewer' | 'operator' | 'admin';
type People = Record<string, { role: Role; token: string }>;

/** The role tests' team: an operator, an admin and a viewer, each with a named bearer token. */
export const TEAM = {
  ana: { role: 'operator', token: 'ana-operator-token-0123456789' },
  bo: { role: 'admin', token: 'bo-admin-token-0123456789ab' },
  vic: { role: 'viewer', token: 'vic-viewer-token-0123456789' },
} as const satisfies People;

/** The relay's management section signing `people` in by their named tokens (the admin token kept). */
export function managementFor(people: People, more: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    auth: 'bearer',
    bearerToken: ADMIN_TOKEN,
    searchKey: TEST_SEARCH_KEY,
    tokens: Object.entries(people).map(([name, { role, token }]) => ({ name, role, token })),
    ...more,
  };
}

export interface Chromium {
  readonly browser: BrowserContext;
  /**
   * A tab that fails fast (WAIT_MS) and writes the page's own errors to the test output, so a failed wait
   * says why. Closed after the test that opened it, so that no signed-in tab of one test hands its sign-in
   * to the next; one opened before the tests (`forTheFile`) stays open until the browser closes.
   */
  newPage(options?: { forTheFile?: boolean }): Promise<Page>;
}

/** A headless Chromium for this test file: a browser context of its own (a fresh profile), closed after. */
export function useChromium(): Chromium {
  let browser: BrowserContext | undefined;
  let ofTheTest: Page[] = [];
  // First, so that a missing Chromium fails at once with the command that installs it.
  beforeAll(async () => {
    browser = await chromiumContext();
  });
  afterEach(async () => {
    await Promise.all(ofTheTest.map((p) => p.close()));
    ofTheTest = [];
  });
  afterAll(async () => browser?.close());
  return {
    get browser() {
      if (!browser) throw new Error('Chromium is launched in beforeAll: use it inside a hook or a test');
      return browser;
    },
    async newPage(options = {}) {
      const page = await this.browser.newPage();
      if (!options.forTheFile) ofTheTest.push(page);
      page.setDefaultTimeout(WAIT_MS);
      page.on('pageerror', (error) => process.stderr.write(`console page error: ${error.message}\n`));
      return page;
    },
  };
}

export interface ConsoleOnRelay extends Chromium {
  readonly relay: TestRelay;
  /** The authorization header of one of the people. */
  as(who: string): { authorization: string };
  /**
   * A new tab signed in: as one of the people by their named token on the sign-in page itself (a tab
   * opened elsewhere would take the sign-in of the person already signed in in this browser,
   * docs/console.md#a-transaction-in-a-new-tab), or with no name as the admin token on the console's start.
   */
  signedIn(who?: string): Promise<Page>;
}

/**
 * Chromium and a relay for this test file: the relay is started after Chromium from `config()` (called in
 * the hook, so it may name what another hook started) with `people` signing in by name, stopped after.
 */
export function useConsoleOnRelay(
  config: () => Record<string, unknown>,
  people: People = {},
): ConsoleOnRelay {
  const chromium = useChromium();
  let relay: TestRelay | undefined;
  beforeAll(async () => {
    const raw = config();
    relay = await startTestRelay(
      Object.keys(people).length
        ? { ...raw, management: managementFor(people, asRecord(raw.management)) }
        : raw,
    );
  });
  afterAll(async () => relay?.stop());
  const token = (who: string) => {
    const person = people[who];
    if (!person) throw new Error(`${who} is not one of this file's people`);
    return person.token;
  };
  return {
    get browser() {
      return chromium.browser;
    },
    newPage: (options) => chromium.newPage(options),
    get relay() {
      if (!relay) throw new Error('the relay is started in beforeAll: use it inside a hook or a test');
      return relay;
    },
    as: (who) => ({ authorization: `Bearer ${token(who)}` }),
    async signedIn(who) {
      const page = await chromium.newPage();
      await page.goto(`${this.relay.url}/console/${who ? '#/signin' : ''}`);
      await page.getByLabel('bearer token').fill(who ? token(who) : ADMIN_TOKEN);
      // The shared token names nobody: its person is typed at sign-in (docs/roles-and-audit.md#the-shared-token).
      if (!who) await page.getByLabel('your name').fill(ADMIN_ACTOR);
      await page.getByRole('button', { name: 'Sign in' }).click();
      if (who) await page.getByTestId('who').getByText(who).waitFor();
      else await page.getByRole('heading', { name: /Transactions/ }).waitFor();
      return page;
    },
  };
}

const asRecord = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : {};

/**
 * Waits until `status()` reads EXPIRED, running one of the relay's poller cycles before each read: the
 * cycle that expires the payment comes within 200 ms, without a poller cycling every 0.2 s for the whole
 * file (each cycle reads the due index and every account's health).
 */
export async function expiredByPoller(t: ConsoleOnRelay, status: () => Promise<string>): Promise<void> {
  await vi.waitFor(
    async () => {
      await t.relay.poller.runOnce();
      expect(await status()).toBe('EXPIRED');
    },
    { timeout: WAIT_MS, interval: 200 },
  );
}

/**
 * A MoMo payment on `account` with a 1 s window, registered by `registrar` and waited for (read by
 * `reader`) until the poller expires it: what a resolution by hand needs.
 */
export async function expiredPayment(
  t: ConsoleOnRelay,
  amount: string,
  { account = 'open', registrar = 'ana', reader = 'vic' } = {},
): Promise<string> {
  const reference = randomUUID();
  const registered = await t.relay.request(
    'POST',
    '/v1/transactions',
    {
      provider: 'momo',
      account,
      kind: 'requesttopay',
      reference,
      amount,
      currency: 'EUR',
      expiresInSeconds: 1,
    },
    t.as(registrar),
  );
  expect(registered.status).toBe(201);
  await expiredByPoller(t, async () => {
    const path = `/v1/transactions/momo/${account}/${reference}`;
    return (await t.relay.request('GET', path, undefined, t.as(reader))).body.transaction.status;
  });
  return reference;
}

/** Clicks an export button and reads the file the browser saved: its name and its lines. */
export async function exported(page: Page, testId: string): Promise<{ name: string; lines: string[] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  return { name: download.suggestedFilename(), lines: csv.trimEnd().split('\r\n') };
}

/** A view is drawn: its heading is there, no API call is in flight (main's aria-busy) and nothing says Loading. */
export async function viewSettled(page: Page): Promise<void> {
  // Polled with evaluate: waitForFunction compiles its predicate with eval, which the page's CSP refuses.
  await vi.waitFor(
    async () =>
      expect(
        await page.evaluate(
          "(() => { const m = document.getElementById('main'); return !!m && !!m.querySelector('h1') && m.getAttribute('aria-busy') !== 'true' && !m.textContent.includes('Loading…'); })()",
        ),
      ).toBe(true),
    { timeout: WAIT_MS, interval: 100 },
  );
}
