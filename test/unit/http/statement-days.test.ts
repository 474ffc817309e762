/**
 * The statement routes take a business day in the path or in `from`/`to`: only a real calendar day the
 * books can hold is read or closed. `9999-12-31` answered 500 (a RangeError stepping past it) and
 * `2026-02-30` an empty open day; both are a 400 naming the rule, before anything is read or closed.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { SchemaValidationError } from '../../../shared/domain/errors';
import { statementRoute } from '../../../shared/http/statement-routes';
import type { InboundRequest } from '../../../shared/http/types';

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const services = {
  config: parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
  }),
  store: new MemoryStore(),
  statements: new MemoryStatementStore(),
  clock: { now: () => new Date('2026-11-23T10:00:00.000Z') },
  log: silent,
} as unknown as RelayServices;
const actor = { kind: 'person', name: 'amos.kiprop', subject: 'amos', role: 'admin' } as never;

const request = (query: Record<string, string> = {}): InboundRequest => ({
  requestId: 'req-1',
  method: 'GET',
  path: '/v1/statements/daraja/ke/days',
  headers: {},
  query,
  rawBody: Buffer.alloc(0),
  sourceIp: '192.0.2.10',
  receivedAt: new Date('2026-11-23T10:00:00.000Z'),
});
const params = (day?: string) => ({ provider: 'daraja', account: 'ke', ...(day ? { day } : {}) });

describe('the business day of the statement routes', () => {
  it.each(['9999-12-31', '9999-99-99', '2026-13-45', '2026-02-30', '0000-00-00', '2026-00-10', '1999-12-31'])(
    'refuses %s as a day to read or close with a 400 naming the rule',
    async (day) => {
      // Act
      const read = statementRoute(services, request(), 'readStatementDay', params(day), actor);
      const close = statementRoute(services, request(), 'closeStatementDay', params(day), actor);
      // Assess
      await expect(read).rejects.toThrow(SchemaValidationError);
      await expect(close).rejects.toThrow(/calendar day YYYY-MM-DD between 2000 and 2199/);
    },
  );

  it('refuses impossible bounds of the days list, and reads real ones', async () => {
    // Act
    const wrong = statementRoute(
      services,
      request({ from: '9999-12-30', to: '9999-12-31' }),
      'listStatementDays',
      params(),
      actor,
    );
    const real = await statementRoute(
      services,
      request({ from: '2024-02-29', to: '2024-03-01' }),
      'listStatementDays',
      params(),
      actor,
    );
    // Assess
    await expect(wrong).rejects.toThrow(SchemaValidationError);
    expect(real.statusCode).toBe(200);
  });
});
