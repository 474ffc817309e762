/**
 * Without Chromium the browser tests must say what to install (issue 27 item 11: playwright's own
 * "executable doesn't exist" named no fix). No browser is started here.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ChromiumMissingError, chromiumPath, launchChromium } from '../helpers/chromium';

const profile = mkdtempSync(join(tmpdir(), 'chromium-launcher-'));
afterAll(() => rmSync(profile, { recursive: true, force: true }));

describe('launching Chromium for the browser tests', () => {
  it('looks in CHROMIUM_PATH when set, else at Debian’s headless shell, else at Debian’s chromium', () => {
    // Prepare
    const only =
      (...paths: string[]) =>
      (path: string) =>
        paths.includes(path);
    // Assess
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' }, only())).toBe('/opt/chrome/chrome');
    expect(chromiumPath({}, only('/usr/bin/chromium-headless-shell', '/usr/bin/chromium'))).toBe(
      '/usr/bin/chromium-headless-shell',
    );
    expect(chromiumPath({ CHROMIUM_PATH: '' }, only('/usr/bin/chromium'))).toBe('/usr/bin/chromium');
    // Neither installed: the path the error names is the one the install command puts there.
    expect(chromiumPath({}, only())).toBe('/usr/bin/chromium-headless-shell');
  });

  it('fails without Chromium with a message naming the path, the install command and CHROMIUM_PATH', async () => {
    // Prepare
    const missing = join(profile, 'no-chromium-here');
    // Act
    const launched = launchChromium(profile, { executablePath: missing });
    // Assess
    await expect(launched).rejects.toThrow(ChromiumMissingError);
    await expect(launched).rejects.toThrow(
      `Chromium not found at ${missing}: the console's browser tests drive a real Chromium. ` +
        'Install it (Debian: sudo apt-get install chromium-headless-shell, which puts it at ' +
        "/usr/bin/chromium-headless-shell; Debian's chromium at /usr/bin/chromium works too) " +
        'or point CHROMIUM_PATH at a Chromium or Chrome binary (README.md#quick-start).',
    );
  });
});
