/**
 * The console's default zone (issue 30 item 8): each account's business time zone as its business days
 * are counted, the one most accounts share, and the story's `?timeZone=` checked.
 */
import { describe, expect, it } from 'vitest';
import { businessTimeZones, storyTimeZone } from '../../../shared/app/console/time-zones';
import { parseConfig } from '../../../shared/config/load';
import { SchemaValidationError } from '../../../shared/domain/errors';

const config = (statements: Record<string, unknown>) =>
  parseConfig({
    accounts: {
      momo: { a: { currency: 'EUR' }, b: { currency: 'EUR' } },
      airtel: { ug: { country: 'UG', currency: 'UGX', hashMode: 'off' } },
    },
    management: { auth: 'bearer', bearerToken: 'unit-test-token-0123' },
    statements: { accounts: statements },
  });

describe('business time zones', () => {
  it("names each account's zone and the one most accounts share", () => {
    // Act
    const zones = businessTimeZones(
      config({ 'momo/a': { timeZone: 'Africa/Kampala' }, 'airtel/ug': { timeZone: 'Africa/Kampala' } }),
    );
    // Assess
    expect(zones).toEqual({
      business: 'Africa/Kampala',
      accounts: { 'momo/a': 'Africa/Kampala', 'momo/b': 'UTC', 'airtel/ug': 'Africa/Kampala' },
    });
  });

  it("takes the provider's default where an account names none", () => {
    expect(businessTimeZones(config({})).business).toBe('UTC');
  });
});

describe("the story's time zone parameter", () => {
  it('is UTC when absent and the zone named otherwise', () => {
    expect(storyTimeZone({})).toBe('UTC');
    expect(storyTimeZone({ timeZone: 'Africa/Nairobi' })).toBe('Africa/Nairobi');
  });

  it('refuses a zone the platform does not know, naming the parameter', () => {
    expect(() => storyTimeZone({ timeZone: 'Mars/Olympus' })).toThrow(SchemaValidationError);
    expect(() => storyTimeZone({ timeZone: 'Mars/Olympus' })).toThrow(/timeZone/);
  });
});
