import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  createScrubber,
  REDACTED,
  redactJson as redactSecrets,
  redactJsonText,
  redactRefusedBody,
  scrubbedDeep,
  scrubThenTruncate,
  scrubValue,
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
          // An echoed relay URL keeps its origin only: its path carries the path secret.
          { Key: 'QueueTimeoutURL', Value: `https://example.com/${REDACTED}` },
        ],
      },
      Item: [{ Name: 'password', Value: REDACTED }],
    });
    expect([...paths].sort()).toEqual([
      'Item[0].Value',
      'ReferenceData.ReferenceItem[0].Value',
      'ReferenceData.ReferenceItem[1].Value',
    ]);
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

describe('issue 18: secrets never survive a truncation, an echo or a note', () => {
  const NAMES = [
    'Security_Credential',
    'SecurityCredential',
    'securitycredential',
    'SECURITY_CREDENTIAL',
    'consumer_secret',
    'consumerSecret',
    'Consumer_Secret',
    'CONSUMERSECRET',
  ];

  it.each(NAMES)('redacts a %s member in a parsed body and in body text', (name) => {
    const secret = 'Zq9vCredentialValue1234567';
    const { value, paths } = redactSecrets({ Amount: 1, [name]: secret });
    expect(value).toEqual({ Amount: 1, [name]: REDACTED });
    expect(paths).toEqual([name]);
    expect(redactJsonText(`{"Amount":1,"${name}":"${secret}"}`)).not.toContain(secret);
    expect(redactJsonText(`Amount=1&${name}=${secret}`)).not.toContain(secret);
  });

  it.each(NAMES)('redacts a %s credential inside a JSON object carried as a JSON string value', (name) => {
    const secret = 'Zq9vCredentialValue1234567';
    const body = { Result: { ReferenceData: JSON.stringify({ Initiator: 'api', [name]: secret }) } };
    const { value, paths } = redactSecrets(body);
    expect(JSON.stringify(value)).not.toContain(secret);
    expect(JSON.parse((value as typeof body).Result.ReferenceData)).toEqual({
      Initiator: 'api',
      [name]: REDACTED,
    });
    expect(paths).toEqual([`Result.ReferenceData#${name}`]);
    // The same body as text (a refused body that is not parsed): the escaped member is found too.
    expect(redactJsonText(JSON.stringify(body))).not.toContain(secret);
    expect(redactRefusedBody(JSON.stringify(body))).not.toContain(secret);
  });

  const PATH_SECRET = 'Zq9vPathSecret0123456789';
  const RESULT_URL = `https://relay.example.com/v1/daraja/ke-main/${PATH_SECRET}/status/result`;
  const TIMEOUT_URL = `https://relay.example.com/v1/daraja/ke-main/${PATH_SECRET}/status/timeout`;

  it.each(['ResultURL', 'QueueTimeOutURL', 'QueueTimeoutURL', 'result_url'])(
    'redacts the relay URL Daraja echoes in ReferenceData under %s (its path secret inside)',
    (key) => {
      const body = {
        Result: {
          ResultCode: 0,
          ReferenceData: {
            ReferenceItem: [
              { Key: 'Occasion', Value: 'rq1.status.abc.ref-1' },
              { Key: key, Value: key.toLowerCase().includes('timeout') ? TIMEOUT_URL : RESULT_URL },
            ],
          },
        },
      };
      const { value } = redactSecrets(body);
      const text = JSON.stringify(value);
      expect(text).not.toContain(PATH_SECRET);
      // The correlation token beside it is kept: the result still finds its query.
      expect(text).toContain('rq1.status.abc.ref-1');
      expect(text).toContain(`https://relay.example.com/${REDACTED}`);
      expect(redactJsonText(JSON.stringify(body))).not.toContain(PATH_SECRET);
    },
  );

  it('redacts a queue-timeout body echoing the request: ResultURL, QueueTimeOutURL and SecurityCredential', () => {
    const body = {
      Initiator: 'testapi',
      SecurityCredential: 'Zq9vCredentialValue1234567',
      CommandID: 'TransactionStatusQuery',
      TransactionID: 'OEI2AK4Q16',
      ResultURL: RESULT_URL,
      QueueTimeOutURL: TIMEOUT_URL,
      Occasion: 'rq1.status.abc.ref-1',
    };
    const { value, paths } = redactSecrets(body);
    expect(JSON.stringify(value)).not.toContain(PATH_SECRET);
    expect(JSON.stringify(value)).not.toContain('Zq9vCredentialValue1234567');
    expect([...paths].sort()).toEqual(['QueueTimeOutURL', 'ResultURL', 'SecurityCredential']);
    expect(redactJsonText(JSON.stringify(body))).not.toContain(PATH_SECRET);
  });

  it('scrubThenTruncate never keeps any part of a secret, wherever the cut falls (property)', () => {
    const secret = 'Zq9vBearerTokenABCDEFGHIJKLMNOP';
    const scrub = createScrubber([secret]);
    fc.assert(
      fc.property(fc.nat(200), fc.nat(secret.length + 20), (before, cutOffset) => {
        const text = `${'.'.repeat(before)}${secret}${'.'.repeat(30)}`;
        const limit = before + cutOffset;
        const out = scrubThenTruncate(text, limit, scrub);
        // Not even the first two characters of the secret survive.
        expect(out).not.toContain(secret.slice(0, 2));
      }),
      { numRuns: 500 },
    );
  });
});

describe('one walk for secrets, two callers (scrubbedDeep: parsed callbacks; scrubValue: log fields)', () => {
  const SECRET = 'walker-secret-0123456789';
  const scrub = createScrubber([SECRET]);

  it('keeps undefined members and non-plain values as they are in a parsed callback, at any depth', () => {
    // Prepare
    const when = new Date('2026-11-21T10:00:00.000Z');
    const error = new Error(`failed ${SECRET}`);
    const map = new Map([['k', SECRET]]);
    const parsed = {
      a: undefined,
      said: `x ${SECRET}`,
      deep: { list: [SECRET, undefined, when], error, map },
    };

    // Act
    const out = scrubbedDeep(parsed, scrub);

    // Assess: strings scrubbed in arrays and plain objects; the rest untouched, the same instances.
    expect(Object.keys(out)).toEqual(['a', 'said', 'deep']);
    expect(out.said).toBe(`x ${REDACTED}`);
    expect(out.deep.list).toEqual([REDACTED, undefined, when]);
    expect(out.deep.list[2]).toBe(when);
    expect(out.deep.error).toBe(error);
    expect(out.deep.map).toBe(map);
    expect(parsed.said).toBe(`x ${SECRET}`);
  });

  it('walks the first level of log fields and copies what is below it through JSON, as it always did', () => {
    // Prepare
    const when = new Date('2026-11-21T10:00:00.000Z');
    const cycle: Record<string, unknown> = { name: SECRET };
    cycle.self = cycle;
    const fields = {
      gone: undefined,
      at: when,
      error: new Error(`failed ${SECRET}`),
      nested: { gone: undefined, at: when, map: new Map([['k', 'v']]), said: SECRET },
      list: [SECRET, undefined],
      cycle,
    };

    // Act
    const out = scrubValue(fields, scrub) as Record<string, unknown>;

    // Assess: the first level keeps undefined members and reduces errors; below it, JSON's copy.
    expect(Object.keys(out)).toEqual(['gone', 'at', 'error', 'nested', 'list', 'cycle']);
    expect(out.gone).toBeUndefined();
    expect(out.at).toBe('2026-11-21T10:00:00.000Z');
    expect(out.error).toEqual({ name: 'Error', message: `failed ${REDACTED}` });
    expect(out.nested).toEqual({ at: '2026-11-21T10:00:00.000Z', map: {}, said: REDACTED });
    expect(Object.keys(out.nested as object)).not.toContain('gone');
    expect(out.list).toEqual([REDACTED, null]);
    expect(out.cycle).toBe('[unserializable]');
    expect(scrubValue([SECRET, { gone: undefined }], scrub)).toEqual([REDACTED, {}]);
    expect(scrubValue(new Error(SECRET), scrub)).toEqual({ name: 'Error', message: REDACTED });
  });
});
