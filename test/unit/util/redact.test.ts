import { describe, expect, it } from 'vitest';
import { REDACTED, redactJson as redactSecrets } from '../../../shared/util/redact';

describe('Daraja credential redaction', () => {
  it('redacts SecurityCredential, Password and InitiatorPassword wherever they are, whatever their case', () => {
    // Prepare
    const body = {
      SecurityCredential: 'c2VjcmV0',
      Amount: '10',
      Nested: { password: 'p', list: [{ InitiatorPassword: 'ip', Keep: 'k' }] },
    };
    // Act
    const { value, paths } = redactSecrets(body);
    // Assess
    expect(value).toEqual({
      SecurityCredential: REDACTED,
      Amount: '10',
      Nested: { password: REDACTED, list: [{ InitiatorPassword: REDACTED, Keep: 'k' }] },
    });
    expect(paths).toEqual(['SecurityCredential', 'Nested.password', 'Nested.list[0].InitiatorPassword']);
  });

  it('leaves a body without credentials untouched and reports nothing', () => {
    const body = { Body: { stkCallback: { ResultCode: 0 } } };
    const { value, paths } = redactSecrets(body);
    expect(value).toEqual(body);
    expect(paths).toEqual([]);
  });

  it('does not invent a redaction for an empty credential', () => {
    expect(redactSecrets({ SecurityCredential: '' }).paths).toEqual([]);
  });
});
