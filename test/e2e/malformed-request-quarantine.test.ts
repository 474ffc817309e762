/**
 * npm start's wiring of the local server's own refusals (local/relay.ts localRefusalRecorder): bytes Node
 * cannot parse as HTTP land in the relay's quarantine on DynamoDB Local and show in the quarantine view.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTestRelay, type TestRelay } from '../helpers/relay';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay({ accounts: { momo: { open: { currency: 'EUR' } } } });
});

afterAll(async () => {
  await relay?.stop();
});

/** Sends bytes over a raw socket; answers what came back before the server closed the connection. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(relay.port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
    socket.write(bytes);
  });
}

describe('a request Node cannot parse, under npm start', () => {
  it('is answered 400 MALFORMED_REQUEST and listed in the quarantine with its source and first bytes', async () => {
    // Act
    const answer = await rawExchange('BREW /pot HTTP/1.1\r\nHost: relay\r\nX-Tea: earl\u0007grey\r\n\r\n');

    // Assess
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).toContain('"code":"MALFORMED_REQUEST"');
    await vi.waitFor(
      async () => {
        const listed = await relay.admin('GET', '/v1/quarantine?reason=MALFORMED_REQUEST');
        expect(listed.status).toBe(200);
        expect(listed.body.entries).toEqual([
          expect.objectContaining({ reason: 'MALFORMED_REQUEST', httpStatus: 400, sourceIp: '127.0.0.1' }),
        ]);
        expect(listed.body.entries[0].body).toContain('X-Tea');
      },
      { timeout: 30_000, interval: 200 },
    );
  });
});
