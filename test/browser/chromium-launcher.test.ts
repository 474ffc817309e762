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
  it('looks in CHROMIUM_PATH when set, else at Debian’s /usr/bin/chromium', () => {
    // Assess
    expect(chromiumPath({ CHROMIUM_PATH: '/opt/chrome/chrome' })).toBe('/opt/chrome/chrome');
    expect(chromiumPath({})).toBe('/usr/bin/chromium');
    expect(chromiumPath({ CHROMIUM_PATH: '' })).toBe('/usr/bin/chromium');
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
        'Install it (Debian/Ubuntu: sudo apt-get install chromium, which puts it at /usr/bin/chromium) ' +
        'or point CHROMIUM_PATH at a Chromium or Chrome binary (README.md#quick-start).',
    );
  });
});
