import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  c2bSchema,
  DARAJA_DEFAULT_SOURCE_IPS,
  darajaAccountSchema,
  resultSchema,
  stkCallbackSchema,
  timeoutEchoShapeSchema,
  timeoutResultShapeSchema,
} from '../../../../shared/providers/daraja/schema';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../../../fixtures/daraja', name), 'utf8'));

describe('Daraja body schemas', () => {
  it.each([
    ['stk-success.json', stkCallbackSchema],
    ['stk-cancelled.json', stkCallbackSchema],
    ['stk-string-resultcode.json', stkCallbackSchema],
    ['b2c-result-success.json', resultSchema],
    ['b2c-result-failure.json', resultSchema],
    ['status-result.json', resultSchema],
    ['b2c-timeout-echo.json', timeoutEchoShapeSchema],
    ['c2b-validation.json', c2bSchema],
    ['c2b-confirmation.json', c2bSchema],
  ] as const)('accepts the fixture %s', (name, schema) => {
    expect(schema.safeParse(fixture(name)).success).toBe(true);
  });

  it('accepts a string ResultCode and keeps it as text', () => {
    const parsed = stkCallbackSchema.parse(fixture('stk-string-resultcode.json'));
    expect(parsed.Body.stkCallback.ResultCode).toBe('SFC_IC0003');
  });

  it('accepts CallbackMetadata items without a Value (Balance)', () => {
    const parsed = stkCallbackSchema.parse(fixture('stk-success.json'));
    expect(parsed.Body.stkCallback.CallbackMetadata?.Item).toContainEqual({ Name: 'Balance' });
  });

  it('accepts a single CallbackMetadata item given as an object instead of an array', () => {
    const body = fixture('stk-success.json');
    body.Body.stkCallback.CallbackMetadata.Item = { Name: 'Amount', Value: 1 };
    expect(stkCallbackSchema.parse(body).Body.stkCallback.CallbackMetadata?.Item).toEqual([
      { Name: 'Amount', Value: 1 },
    ]);
  });

  it('accepts ReferenceItem as an object and as an array, always yielding an array', () => {
    const asObject = resultSchema.parse(fixture('b2c-result-success.json'));
    const body = fixture('b2c-result-success.json');
    body.Result.ReferenceData.ReferenceItem = [
      { Key: 'QueueTimeoutURL', Value: 'https://example.com/t' },
      { Key: 'Occasion' },
    ];
    const asArray = resultSchema.parse(body);
    expect(asObject.Result.ReferenceData?.ReferenceItem).toHaveLength(1);
    expect(asArray.Result.ReferenceData?.ReferenceItem).toHaveLength(2);
  });

  it('keeps every ResultParameter of a repeated key', () => {
    const parsed = resultSchema.parse(fixture('status-result.json'));
    const names = parsed.Result.ResultParameters?.ResultParameter?.filter((p) => p.Key === 'DebitPartyName');
    expect(names?.map((p) => p.Value)).toEqual(['600310 - Safaricom333', '254708374149 - John Doe']);
  });

  it('tolerates unknown members everywhere and keeps them', () => {
    const body = fixture('stk-success.json');
    body.Extra = { nested: true };
    body.Body.stkCallback.NewField = 'x';
    const parsed = stkCallbackSchema.parse(body) as Record<string, unknown>;
    expect(parsed.Extra).toEqual({ nested: true });
  });

  it('accepts both queue-timeout shapes', () => {
    const echo = timeoutEchoShapeSchema.safeParse(fixture('b2c-timeout-echo.json'));
    const result = timeoutResultShapeSchema.safeParse({
      Result: { ResultType: 1, ResultCode: 1037, OriginatorConversationID: '1-2-3', ConversationID: 'AG_1' },
    });
    expect([echo.success, result.success]).toEqual([true, true]);
  });

  it('rejects an STK callback without CheckoutRequestID', () => {
    const body = fixture('stk-success.json');
    delete body.Body.stkCallback.CheckoutRequestID;
    expect(stkCallbackSchema.safeParse(body).success).toBe(false);
  });

  it('rejects a result that carries neither OriginatorConversationID nor ConversationID', () => {
    const body = fixture('b2c-result-success.json');
    delete body.Result.OriginatorConversationID;
    delete body.Result.ConversationID;
    expect(resultSchema.safeParse(body).success).toBe(false);
  });

  it('rejects a C2B body without TransID', () => {
    const body = fixture('c2b-validation.json');
    delete body.TransID;
    expect(c2bSchema.safeParse(body).success).toBe(false);
  });
});

describe('Daraja account settings', () => {
  it('defaults to KES, the 15 cited Safaricom addresses in enforce mode, a 5 s deadline and accept', () => {
    const settings = darajaAccountSchema.parse({});
    expect(settings.currency).toBe('KES');
    expect(settings.sourceIp).toEqual({ mode: 'enforce', allow: [...DARAJA_DEFAULT_SOURCE_IPS] });
    expect(DARAJA_DEFAULT_SOURCE_IPS).toHaveLength(15);
    expect(settings.c2b).toMatchObject({
      deadlineMs: 5000,
      defaultDecision: 'accept',
      defaultRejectCode: 'C2B00016',
    });
  });

  it('refuses a deadline above the 7.5 s hard cap', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { deadlineMs: 7501 } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { deadlineMs: 7500 } }).success).toBe(true);
  });

  it('refuses an invalid BillRefNumber pattern, CIDR, reject code or amount range', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { billRefPattern: '([' } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ sourceIp: { allow: ['196.201.214.0/33'] } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { defaultRejectCode: 'C2B00099' } }).success).toBe(false);
    expect(darajaAccountSchema.safeParse({ c2b: { minAmount: 10, maxAmount: 5 } }).success).toBe(false);
  });

  it('refuses misspelt c2b settings instead of ignoring them', () => {
    expect(darajaAccountSchema.safeParse({ c2b: { deadlinems: 300 } }).success).toBe(false);
  });
});
