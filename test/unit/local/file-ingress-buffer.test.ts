import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FileIngressBuffer, LocalBufferDrainer } from '../../../local/file-ingress-buffer';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { receiveCallback } from '../../../shared/app/receive-callback';
import type { RelayServices } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { createScrubber } from '../../../shared/util/redact';
import { RecordingMetrics } from '../../helpers/ingress-buffer';
import { silentLogger } from '../../helpers/relay';
import { registered } from '../../helpers/reports';

const REFERENCE = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const BODY = readFileSync(
  new URL('../../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'relay-buffer-'));
  dirs.push(dir);
  const lines: string[] = [];
  const buffer = new FileIngressBuffer(dir, (line) => lines.push(line));
  const store = new MemoryStore();
  const metrics = new RecordingMetrics();
  const services: RelayServices = {
    config: parseConfig({
      management: { bearerToken: 'management-token-0123456789' },
      accounts: {
        momo: { demo: { currency: 'EUR', confirmSuccess: false, allowNoPathSecret: 'local tests only' } },
      },
    }),
    store,
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: silentLogger,
    scrub: createScrubber([]),
    ingressBuffer: buffer,
    metrics,
  };
  const drainer = new LocalBufferDrainer(services, buffer, 60_000, (line) => lines.push(line));
  return { dir, lines, buffer, store, metrics, services, drainer };
}

const callback = (body = BODY) => ({
  requestId: 'req-1',
  method: 'PUT',
  path: `/v1/momo/demo/requesttopay/${REFERENCE}`,
  headers: { 'content-type': 'application/json' },
  query: {},
  rawBody: Buffer.from(body),
  sourceIp: '127.0.0.1',
  receivedAt: new Date('2026-11-21T10:00:00.000Z'),
});

const finals = (store: MemoryStore) =>
  store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');

describe('FileIngressBuffer and LocalBufferDrainer', () => {
  it('keeps a callback the store refused as one file and prints a line about it', async () => {
    // Prepare
    const { dir, lines, store, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, callback());

    // Assess
    expect(response.statusCode).toBe(200);
    const files = readdirSync(dir).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(1);
    expect(JSON.parse(readFileSync(join(dir, files[0]!), 'utf8'))).toMatchObject({
      version: 1,
      provider: 'momo',
    });
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    expect(lines[0]).toMatch(
      /buffered momo\/demo callback callback \(store unavailable: .*simulated outage\)/,
    );
  });

  it('applies the entries once the store answers, removes them, and says so', async () => {
    // Prepare
    const { buffer, lines, store, services, drainer, metrics } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';
    await receiveCallback(services, callback());
    store.failure = 'none';

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 1, failed: 0, left: 0 });
    expect(await buffer.pending()).toEqual([]);
    expect(finals(store).map((e) => e.metadata.origin)).toEqual(['buffer']);
    expect(lines.at(-1)).toBe('  ⇢ ingress buffer drained: 1 callback applied (0 left)');
    expect(metrics.total('BufferedCallbacksApplied')).toBe(1);
  });

  it('keeps every entry while the store is still down', async () => {
    // Prepare
    const { buffer, store, services, drainer } = setup();
    store.failure = 'error';
    await receiveCallback(services, callback());
    await receiveCallback(services, callback(BODY.replace('100', '101')));

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 0, failed: 0, left: 2 });
    expect(await buffer.pending()).toHaveLength(2);
  });

  it('applies an entry again after a crash between applying and removing it, with still one event', async () => {
    // Prepare
    const { buffer, store, services, drainer } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';
    await receiveCallback(services, callback());
    store.failure = 'none';
    const remove = buffer.remove.bind(buffer);
    buffer.remove = async () => {
      throw new Error('crashed before the removal');
    };

    // Act
    await drainer.runOnce();
    buffer.remove = remove;
    const second = await drainer.runOnce();

    // Assess
    expect(second.applied).toBe(1);
    expect(await buffer.pending()).toEqual([]);
    expect(finals(store)).toHaveLength(1);
  });

  it('moves an entry that can never be applied to failed/', async () => {
    // Prepare
    const { dir, buffer, store, services, drainer, lines } = setup();
    store.failure = 'error';
    await receiveCallback(services, callback());
    store.failure = 'none';
    const [name] = await buffer.pending();
    const { writeFileSync } = await import('node:fs');
    writeFileSync(join(dir, name!), JSON.stringify({ version: 7 }));

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 0, failed: 1, left: 0 });
    expect(readdirSync(join(dir, 'failed'))).toEqual([name]);
    expect(lines.some((l) => /cannot be applied .*→ failed\//.test(l))).toBe(true);
  });

  it('refuses to write once the ack budget ran out', async () => {
    // Prepare
    const { buffer } = setup();

    // Act / Assess
    await expect(buffer.accept({ version: 1 } as never, { signal: AbortSignal.abort() })).rejects.toThrow(
      /Local ingress buffer not written/,
    );
  });
});
