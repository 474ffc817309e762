import { describe, expect, it } from 'vitest';
import {
  createScrubber,
  REDACTED,
  redactJson as redactSecrets,
  redactJsonText,
} from '../../../shared/util/redact';

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

  it('redacts the Value of a {Key|Name, Value} item that names a credential, and only that Value', () => {
    // Prepare
    const body = {
      ReferenceData: {
        ReferenceItem: [
          { Key: 'SecurityCredential', Value: 'SUPERSECRET2' },
          { Key: 'QueueTimeoutURL', Value: 'https://example.com' },
        ],
      },
      Item: [{ Name: 'password', Value: 'p4ss' }],
    };
    // Act
    const { value, paths } = redactSecrets(body);
    // Assess
    expect(value).toEqual({
      ReferenceData: {
        ReferenceItem: [
          { Key: 'SecurityCredential', Value: REDACTED },
          { Key: 'QueueTimeoutURL', Value: 'https://example.com' },
        ],
      },
      Item: [{ Name: 'password', Value: REDACTED }],
    });
    expect([...paths].sort()).toEqual(['Item[0].Value', 'ReferenceData.ReferenceItem[0].Value']);
  });
});

describe('createScrubber', () => {
  it('replaces every occurrence of a configured secret, raw or percent-encoded', () => {
    // Prepare
    const secret = 'key/with+special=chars&more';
    const scrub = createScrubber([secret, 'path-secret-0123456789']);

    // Act
    const out = scrub(
      `a ${secret} b ${encodeURIComponent(secret)} c path-secret-0123456789 d path-secret-0123456789`,
    );

    // Assess
    expect(out).toBe(`a ${REDACTED} b ${REDACTED} c ${REDACTED} d ${REDACTED}`);
  });

  it('replaces the longest secret first, so a secret containing another is removed whole', () => {
    // Prepare
    const scrub = createScrubber(['secret-01234567', 'secret-01234567-and-more']);

    // Act
    const out = scrub('x secret-01234567-and-more y');

    // Assess
    expect(out).toBe(`x ${REDACTED} y`);
  });

  it('ignores unset and short values, which would scrub ordinary words', () => {
    // Prepare
    const scrub = createScrubber([undefined, '', 'short']);

    // Act + Assess
    expect(scrub('a short text')).toBe('a short text');
  });

  it('leaves a text without secrets unchanged', () => {
    expect(createScrubber(['path-secret-0123456789'])('nothing to see')).toBe('nothing to see');
  });
});

describe('redactJsonText', () => {
  it('redacts credential members in text that does not parse, keeping everything else', () => {
    // Prepare
    const text =
      '{"InitiatorName":"api","SecurityCredential":"c2VjcmV0","password" : "p\\"q", "PIN": 1234, "Amount":"10", oops';

    // Act
    const out = redactJsonText(text);

    // Assess
    expect(out).toBe(
      `{"InitiatorName":"api","SecurityCredential":"${REDACTED}","password" : "${REDACTED}", "PIN": ${REDACTED}, "Amount":"10", oops`,
    );
  });

  it('does not redact members whose name only contains a credential name', () => {
    const text = '{"PINCode":"x","SpinCount":"3","MyPassword2":"y"}';
    expect(redactJsonText(text)).toBe(text);
  });

  it('redacts form-encoded credentials', () => {
    expect(redactJsonText('Amount=10&Password=hunter2&x=1')).toBe(`Amount=10&Password=${REDACTED}&x=1`);
  });
});

describe('redactJson on hostile input', () => {
  it('copies a value nested 10,000 levels deep without throwing', () => {
    // Prepare
    let deep: unknown = { SecurityCredential: 'c2VjcmV0' };
    for (let i = 0; i < 10_000; i++) deep = i % 2 ? { a: deep } : [deep];

    // Act
    const run = () => redactSecrets(deep);

    // Assess
    expect(run).not.toThrow();
    const { paths } = run();
    expect(paths).toHaveLength(1);
    expect(paths[0]!.endsWith('SecurityCredential')).toBe(true);
  });

  it('keeps a "__proto__" member as data instead of changing the copy\'s prototype', () => {
    // Prepare
    const body = JSON.parse('{"__proto__":{"polluted":true},"Password":"p"}');

    // Act
    const { value } = redactSecrets(body);

    // Assess
    const copy = value as Record<string, unknown>;
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    expect((copy as { polluted?: boolean }).polluted).toBeUndefined();
    expect(Object.keys(copy).sort()).toEqual(['Password', '__proto__']);
    expect(copy.Password).toBe(REDACTED);
  });
});

describe('redactJson keeps the body as received', () => {
  it('keeps the members of every object in the order they arrived (the stored body is JSON.stringify of the copy)', () => {
    // Prepare
    const body = JSON.parse(
      '{"OriginatorConversationID":"1","SecurityCredential":"c2Vj","Amount":"10","Nested":{"x":1,"y":2}}',
    );

    // Act
    const { value } = redactSecrets(body);

    // Assess
    expect(JSON.stringify(value)).toBe(
      `{"OriginatorConversationID":"1","SecurityCredential":"${REDACTED}","Amount":"10","Nested":{"x":1,"y":2}}`,
    );
  });
});
