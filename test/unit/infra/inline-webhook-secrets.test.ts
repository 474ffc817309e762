import { describe, expect, it } from 'vitest';
import { inlineSecrets } from '../../../infra/relay/validate';
import { parseConfig } from '../../../shared/config/load';

describe('inline secrets in a deployed config', () => {
  it('names a webhook destination signing secret written in the config, and where it belongs instead', () => {
    // Prepare
    const secret = 'whsec_ZGVtby1zaWduaW5nLXNlY3JldC1ub3QtZm9yLXByb2R1Y3Rpb24=';
    const raw = {
      management: { auth: 'iam' },
      destinations: { shop: { url: 'https://shop.example.com/hooks', signingSecrets: [secret] } },
    };

    // Act
    const found = inlineSecrets(raw, parseConfig(raw));

    // Assess
    expect(found).toEqual([
      expect.objectContaining({
        value: secret,
        instead: expect.stringContaining('destinations.shop.signingSecretId'),
      }),
    ]);
  });
});
