import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FileIngressBuffer, LocalBufferDrainer, SEAL_KEY_FILE } from '../../../local/file-ingress-buffer';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { bufferServices, momoCallback } from '../../helpers/buffer-world';
import { silentLogger } from '../../helpers/relay';
import { registered } from '../../helpers/reports';

/** Faults the tests switch on in the real file system calls (a full disk, a failed rename). */
const faults = vi.hoisted(() => ({
  diskFull: false,
  renameFails: false,
  opened: [] as string[],
}));
vi.mock('node:fs/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:fs/promises')>();
  const open: typeof actual.open = async (path, ...rest) => {
    faults.opened.push(String(path));
    const handle = await actual.open(path, ...rest);
    if (faults.diskFull)
      handle.writeFile = async () => {
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      };
    return handle;
  };
  const rename: typeof actual.rename = async (from, to) => {
    if (faults.renameFails)
      throw Object.assign(new Error(`EACCES: permission denied, rename '${String(from)}'`), {
        code: 'EACCES',
      });
    return actual.rename(from, to);
  };
  return { ...actual, open, rename, default: { ...actual, open, rename } };
});

const dirs: string[] = [];
afterEach(() => {
  Object.assign(faults, { diskFull: false, renameFails: false, opened: [] });
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function recordingLogger() {
  const errors: { message: string; fields: Record<string, unknown> }[] = [];
  return {
    errors,
    log: {
      ...silentLogger,
      error: (message: string, fields: Record<string, unknown> = {}) => errors.push({ message, fields }),
    },
  };
}

function setup() {
  const dir = mkdtempSync(join(tmpdir(), 'relay-buffer-'));
  dirs.push(dir);
  const lines: string[] = [];
  const logged = recordingLogger();
  const buffer = new FileIngressBuffer(dir, (line) => lines.push(line));
  const { store, metrics, services } = bufferServices({ buffer, log: logged.log });
  const drainer = new LocalBufferDrainer(services, buffer, 60_000, (line) => lines.push(line));
  return { dir, lines, buffer, store, metrics, services, drainer, errors: logged.errors };
}

const finals = (store: MemoryStore) =>
  store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');

describe('FileIngressBuffer and LocalBufferDrainer', () => {
  it('keeps a callback the store refused as one file and prints a line about it', async () => {
    // Prepare
    const { dir, lines, store, services } = setup();
    store.failure = 'error';

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(200);
    const files = readdirSync(dir).filter((n) => n.endsWith('.json'));
    expect(files).toHaveLength(1);
    const [seal, ...message] = readFileSync(join(dir, files[0]!), 'utf8').split('\n');
    expect(seal).toMatch(/^relay-seal [0-9a-f]{64}$/);
    expect(JSON.parse(message.join('\n'))).toMatchObject({
      version: 1,
      provider: 'momo',
    });
    expect(readdirSync(dir).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // The body carries whole phone numbers: nobody else on the machine reads it.
    expect(statSync(join(dir, files[0]!)).mode & 0o777).toBe(0o600);
    expect(lines[0]).toMatch(
      /buffered momo\/demo callback callback \(store unavailable: .*simulated outage\)/,
    );
  });

  it('applies the entries once the store answers, removes them, and says so', async () => {
    // Prepare
    const { buffer, lines, store, services, drainer, metrics } = setup();
    await store.createTransaction(registered());
    store.failure = 'error';
    await receiveCallback(services, momoCallback());
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
    await receiveCallback(services, momoCallback());
    await receiveCallback(services, momoCallback({ amount: '101' }));

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
    await receiveCallback(services, momoCallback());
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
    await receiveCallback(services, momoCallback());
    store.failure = 'none';
    const [name] = await buffer.pending();
    writeFileSync(join(dir, name!), await buffer.seal(JSON.stringify({ version: 7 })));

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
  it('goes on past an entry it cannot read and applies the entries behind it', async () => {
    // Prepare
    const { dir, buffer, store, services, drainer } = setup();
    await store.createTransaction(registered());
    mkdirSync(join(dir, '000000000000000-poison.json'));
    store.failure = 'error';
    await receiveCallback(services, momoCallback());
    store.failure = 'none';

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 1, failed: 0, left: 1 });
    expect(await buffer.pending()).toEqual(['000000000000000-poison.json']);
    expect(finals(store)).toHaveLength(1);
  });

  it('moves an entry that fails 5 times to failed/ with a line saying why', async () => {
    // Prepare
    const { dir, buffer, drainer, lines, errors } = setup();
    mkdirSync(join(dir, '000000000000000-poison.json'));

    // Act
    const results = [];
    for (let pass = 0; pass < 6; pass++) results.push(await drainer.runOnce());

    // Assess
    expect(results.map((r) => r.failed)).toEqual([0, 0, 0, 0, 1, 0]);
    expect(results.at(-1)).toEqual({ applied: 0, failed: 0, left: 0 });
    expect(await buffer.pending()).toEqual([]);
    expect(readdirSync(join(dir, 'failed'))).toEqual(['000000000000000-poison.json']);
    expect(
      lines.filter((l) =>
        /000000000000000-poison\.json not applied after 5 attempts \(.*EISDIR.*\) → failed\//.test(l),
      ),
    ).toHaveLength(1);
    expect(errors.filter((e) => e.message === 'buffered callback not applied; retried')).toHaveLength(4);
  });

  it('counts an unappliable entry it cannot move to failed/ once, and logs it once', async () => {
    // Prepare
    const { dir, buffer, store, services, drainer, errors } = setup();
    store.failure = 'error';
    await receiveCallback(services, momoCallback());
    store.failure = 'none';
    const [name] = await buffer.pending();
    writeFileSync(join(dir, name!), await buffer.seal(JSON.stringify({ version: 7 })));
    faults.renameFails = true;

    // Act
    const results = [];
    for (let pass = 0; pass < 3; pass++) results.push(await drainer.runOnce());

    // Assess
    expect(results.map((r) => r.failed)).toEqual([1, 0, 0]);
    expect(results.map((r) => r.left)).toEqual([1, 1, 1]);
    expect(drainer.totals.failed).toBe(1);
    expect(errors.map((e) => e.message)).toEqual([
      'buffered callback cannot be applied; moved to failed/',
      'buffered callback could not be moved to failed/; left in place',
    ]);
  });

  it('moves an entry it could not move before once the move works again', async () => {
    // Prepare
    const { dir, buffer, drainer } = setup();
    writeFileSync(join(dir, '000000000000001-a.json'), await buffer.seal(JSON.stringify({ version: 7 })));
    faults.renameFails = true;
    await drainer.runOnce();
    faults.renameFails = false;

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 0, failed: 0, left: 0 });
    expect(await buffer.pending()).toEqual([]);
    expect(readdirSync(join(dir, 'failed'))).toEqual(['000000000000001-a.json']);
  });

  it('still stops the pass at the first entry while the store is down', async () => {
    // Prepare
    const { dir, store, services, drainer, errors } = setup();
    mkdirSync(join(dir, '999999999999999-poison.json'));
    store.failure = 'error';
    await receiveCallback(services, momoCallback());

    // Act
    const result = await drainer.runOnce();

    // Assess
    expect(result).toEqual({ applied: 0, failed: 0, left: 2 });
    expect(errors).toEqual([]);
  });

  it('leaves no temporary file behind when a write fails (a full disk)', async () => {
    // Prepare
    const { dir, buffer, store, services } = setup();
    await buffer.pending();
    store.failure = 'error';
    faults.diskFull = true;

    // Act
    const response = await receiveCallback(services, momoCallback());

    // Assess
    expect(response.statusCode).toBe(503);
    expect(readdirSync(dir)).toEqual(['failed']);
  });

  it('removes the temporary files a crashed write left behind, not one being written now', async () => {
    // Prepare
    const { dir, drainer } = setup();
    writeFileSync(join(dir, '.000000000000001-old.json.tmp'), '{"version"');
    const hourAgo = new Date(Date.now() - 3_600_000);
    utimesSync(join(dir, '.000000000000001-old.json.tmp'), hourAgo, hourAgo);
    writeFileSync(join(dir, '.000000000000002-now.json.tmp'), '{"version"');

    // Act
    await drainer.runOnce();

    // Assess
    expect(readdirSync(dir).sort()).toEqual(['.000000000000002-now.json.tmp', 'failed']);
  });

  it('syncs both directories when it moves an entry to failed/', async () => {
    // Prepare
    const { dir, drainer } = setup();
    writeFileSync(join(dir, '000000000000001-a.json'), JSON.stringify({ version: 7 }));
    await drainer.runOnce();
    expect(readdirSync(join(dir, 'failed'))).toEqual(['000000000000001-a.json']);
    faults.opened.length = 0;
    writeFileSync(join(dir, '000000000000002-b.json'), JSON.stringify({ version: 7 }));

    // Act
    await drainer.runOnce();

    // Assess
    expect(faults.opened).toEqual(expect.arrayContaining([dir, join(dir, 'failed')]));
  });

  describe('the seal (issue 18)', () => {
    /** A genuine buffered callback's entry: the store failed, so receiveCallback buffered it. */
    async function buffered(ctx: ReturnType<typeof setup>) {
      await ctx.store.createTransaction(registered());
      ctx.store.failure = 'error';
      await receiveCallback(ctx.services, momoCallback());
      ctx.store.failure = 'none';
      const [name] = await ctx.buffer.pending();
      return name!;
    }

    it('generates one key per directory, mode 0600, and never prints or logs it', async () => {
      // Prepare
      const ctx = setup();
      await buffered(ctx);

      // Act
      const key = readFileSync(join(ctx.dir, SEAL_KEY_FILE), 'utf8');
      const again = new FileIngressBuffer(ctx.dir);
      const sealedAgain = await again.seal('{}');

      // Assess
      expect(key).toMatch(/^[0-9a-f]{64}$/);
      expect(statSync(join(ctx.dir, SEAL_KEY_FILE)).mode & 0o777).toBe(0o600);
      expect(sealedAgain).toBe(await ctx.buffer.seal('{}'));
      expect(JSON.stringify([ctx.lines, ctx.errors])).not.toContain(key);
    });

    it('moves an injected entry (valid-looking JSON, no seal) to failed/ and publishes nothing', async () => {
      // Prepare
      const ctx = setup();
      const name = await buffered(ctx);
      const message = readFileSync(join(ctx.dir, name), 'utf8').split('\n').slice(1).join('\n');
      rmSync(join(ctx.dir, name));
      const injected = '000000000000001-injected.json';
      writeFileSync(join(ctx.dir, injected), message);

      // Act
      const result = await ctx.drainer.runOnce();

      // Assess
      expect(result).toEqual({ applied: 0, failed: 1, left: 0 });
      expect(readdirSync(join(ctx.dir, 'failed'))).toEqual([injected]);
      expect(ctx.store.published).toEqual([]);
      expect(ctx.errors).toEqual([
        {
          message:
            'buffered callback refused: its seal does not match (not written by this relay); moved to failed/',
          fields: { entry: injected, error: 'it carries no seal' },
        },
      ]);
      expect(ctx.lines.some((l) => l.includes(`${injected} refused (it carries no seal`))).toBe(true);
    });

    it('moves an edited sealed entry (its amount changed, or a made-up seal) to failed/ and publishes nothing', async () => {
      // Prepare
      const ctx = setup();
      const name = await buffered(ctx);
      const original = readFileSync(join(ctx.dir, name), 'utf8');
      const edited = original.replace('100', '999');
      expect(edited).not.toBe(original);
      writeFileSync(join(ctx.dir, name), edited);
      const forged = '000000000000002-forged-seal.json';
      writeFileSync(
        join(ctx.dir, forged),
        `relay-seal ${'0'.repeat(64)}\n${original.split('\n').slice(1).join('\n')}`,
      );

      // Act
      const result = await ctx.drainer.runOnce();

      // Assess
      expect(result).toEqual({ applied: 0, failed: 2, left: 0 });
      expect(readdirSync(join(ctx.dir, 'failed')).sort()).toEqual([forged, name].sort());
      expect(ctx.store.published).toEqual([]);
      expect(ctx.errors.map((e) => e.fields.error)).toEqual([
        'its seal does not match its text',
        'its seal does not match its text',
      ]);
    });

    it('refuses an entry sealed with another directory’s key', async () => {
      // Prepare
      const ctx = setup();
      const other = setup();
      const name = await buffered(other);
      writeFileSync(join(ctx.dir, name), readFileSync(join(other.dir, name)));
      await ctx.store.createTransaction(registered());

      // Act
      const result = await ctx.drainer.runOnce();

      // Assess
      expect(result).toEqual({ applied: 0, failed: 1, left: 0 });
      expect(ctx.store.published).toEqual([]);
    });

    it('still applies a genuine buffered callback exactly once, with a relay restarted on the directory', async () => {
      // Prepare
      const ctx = setup();
      await buffered(ctx);
      const restarted = new FileIngressBuffer(ctx.dir);
      const drainer = new LocalBufferDrainer(ctx.services, restarted, 60_000);

      // Act
      const first = await drainer.runOnce();
      const second = await drainer.runOnce();

      // Assess
      expect(first).toEqual({ applied: 1, failed: 0, left: 0 });
      expect(second).toEqual({ applied: 0, failed: 0, left: 0 });
      expect(finals(ctx.store)).toHaveLength(1);
      expect(readdirSync(join(ctx.dir, 'failed'))).toEqual([]);
      expect(ctx.errors).toEqual([]);
    });
  });
});
