import { randomBytes, randomUUID } from 'node:crypto';
import { chmod, link, mkdir, open, readdir, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { settleBuffered } from '../shared/app/buffer/settle-buffered';
import {
  IngressBufferUnavailableError,
  SEAL_ATTRIBUTE,
  sealMatches,
  sealOf,
} from '../shared/app/buffer/ingress-buffer';
import type { BufferedMessage, IngressBuffer } from '../shared/app/ports';
import type { RelayServices } from '../shared/app/services';
import { BUFFERED_APPLIED_METRIC, BUFFERED_FAILED_METRIC } from '../shared/config/metric-names';

/** Temporary files: an entry's (`.<id>.json.tmp`) and the seal key's (`.seal-key.<uuid>.tmp`). */
const TEMPORARY = /^\..*\.tmp$/;

/** The buffer's seal key, in the spool directory itself (mode 0600; never printed or logged). */
export const SEAL_KEY_FILE = '.seal-key';

/** An entry's first line: `relay-seal <HMAC-SHA256 of the rest, hex>`; the message text follows. */
const SEAL_PREFIX = `${SEAL_ATTRIBUTE} `;

/**
 * An entry whose seal is missing or does not match its text: not written by this relay's buffer (made
 * up, or edited since). Never applied; it moves to failed/ at once.
 */
class UnsealedBufferEntryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnsealedBufferEntryError';
  }
}

/** The key's text: 64 hex characters (32 random bytes), used as SQS's key is (its UTF-8 bytes). */
async function readSealKey(path: string): Promise<Buffer> {
  const text = (await readFile(path, 'utf8')).trim();
  if (text.length < 32) throw new Error(`the local buffer seal key (${path}) is shorter than 32 characters`);
  // Whoever can read the key can seal entries: keep it to the relay's user.
  if ((await stat(path)).mode & 0o077) await chmod(path, 0o600);
  return Buffer.from(text, 'utf8');
}

/**
 * The spool directory's seal key, generated on first use. Written to a temporary file (mode 0600) and
 * linked into place, so two relays starting on one directory agree on one key (the link fails for the
 * second, which reads the first's).
 */
async function loadOrCreateSealKey(dir: string): Promise<Buffer> {
  const path = join(dir, SEAL_KEY_FILE);
  try {
    return await readSealKey(path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temporary = join(dir, `${SEAL_KEY_FILE}.${randomUUID()}.tmp`);
  try {
    const file = await open(temporary, 'wx', 0o600);
    try {
      await file.writeFile(randomBytes(32).toString('hex'), 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    await link(temporary, path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
  } finally {
    await unlink(temporary).catch(() => undefined);
  }
  await syncDirectory(dir);
  return readSealKey(path);
}

/** An entry's text: the seal line, then the message exactly as sealed. */
function sealedEntry(message: string, key: Buffer): string {
  return `${SEAL_PREFIX}${sealOf(message, key)}\n${message}`;
}

/** The message of an entry whose seal matches; UnsealedBufferEntryError otherwise. */
function unsealEntry(text: string, key: Buffer): string {
  const end = text.indexOf('\n');
  if (!text.startsWith(SEAL_PREFIX) || end < 0) throw new UnsealedBufferEntryError('it carries no seal');
  const message = text.slice(end + 1);
  if (!sealMatches(message, text.slice(SEAL_PREFIX.length, end), key))
    throw new UnsealedBufferEntryError('its seal does not match its text');
  return message;
}

/** Makes the entries a directory lists (a rename into or out of it) durable. */
async function syncDirectory(dir: string): Promise<void> {
  const directory = await open(dir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * Writes a file and its directory entry to disk before returning: a crash afterwards keeps it. A write
 * that fails before the rename (a full disk) removes its temporary file.
 */
async function writeDurably(dir: string, name: string, text: string): Promise<void> {
  const temporary = join(dir, `.${name}.tmp`);
  // Readable by its owner only: a held callback's body carries whole phone numbers.
  const file = await open(temporary, 'wx', 0o600);
  try {
    try {
      await file.writeFile(text, 'utf8');
      await file.sync();
    } finally {
      await file.close();
    }
    // The rename makes the entry appear whole or not at all; the directory sync makes the rename durable.
    await rename(temporary, join(dir, name));
  } catch (error) {
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dir);
}

/**
 * The ingress buffer of `npm start`: one file per buffered callback in a spool directory (default
 * `.relay/ingress-buffer/`), written and fsynced before the provider gets its ack. Files are named by
 * time, so draining applies them in arrival order; a message that can never be applied moves to
 * `failed/` (the local dead-letter queue).
 */
export class FileIngressBuffer implements IngressBuffer {
  private ready: Promise<unknown> | undefined;
  private key: Promise<Buffer> | undefined;

  constructor(
    readonly dir: string,
    private readonly print: (line: string) => void = () => {},
  ) {}

  private ensureDir(): Promise<unknown> {
    this.ready ??= mkdir(join(this.dir, 'failed'), { recursive: true });
    return this.ready;
  }

  /** The seal key of this directory (generated on first use); tried again after a failure. */
  private sealKey(): Promise<Buffer> {
    this.key ??= this.ensureDir()
      .then(() => loadOrCreateSealKey(this.dir))
      .catch((error: unknown) => {
        this.key = undefined;
        throw error;
      });
    return this.key;
  }

  /** A message's entry text, sealed with this directory's key (as accept writes it). */
  async seal(message: string): Promise<string> {
    return sealedEntry(message, await this.sealKey());
  }

  async accept(message: BufferedMessage, options: { signal?: AbortSignal } = {}): Promise<{ id: string }> {
    const id = `${Date.now().toString().padStart(15, '0')}-${randomUUID()}`;
    try {
      options.signal?.throwIfAborted();
      await this.ensureDir();
      await writeDurably(this.dir, `${id}.json`, await this.seal(JSON.stringify(message)));
    } catch (cause) {
      this.ready = undefined;
      throw new IngressBufferUnavailableError(
        `Local ingress buffer not written: ${(cause as Error).message}`,
        {
          cause,
        },
      );
    }
    this.print(
      `  ⇢ buffered ${message.provider}/${message.account} ${message.route} callback (store unavailable: ${message.why}) → ${this.dir}`,
    );
    return { id };
  }

  /** Names of the entries waiting to be applied, oldest first. */
  async pending(): Promise<string[]> {
    await this.ensureDir();
    return (await readdir(this.dir)).filter((name) => name.endsWith('.json')).sort();
  }

  /**
   * An entry's message, once its seal matches: anyone who could write to the directory could otherwise
   * make the relay apply a callback as authenticated. UnsealedBufferEntryError for an entry without a
   * seal, with a wrong one, or edited since it was sealed.
   */
  async read(name: string): Promise<string> {
    const text = await readFile(join(this.dir, name), 'utf8');
    return unsealEntry(text, await this.sealKey());
  }

  /** After the entry was applied: a crash before this line only means applying it again (deduped). */
  remove(name: string): Promise<void> {
    return unlink(join(this.dir, name));
  }

  /** Out of the way, into the local dead-letter directory; both directories synced like a write. */
  async moveToFailed(name: string): Promise<void> {
    await this.ensureDir();
    await rename(join(this.dir, name), join(this.dir, 'failed', name));
    await syncDirectory(join(this.dir, 'failed'));
    await syncDirectory(this.dir);
  }

  /**
   * Removes the temporary files of writes that never finished (a crash or a kill mid-write). Only
   * those older than `olderThanMs`: a younger one may be a write in progress. Returns how many.
   */
  async removeStaleTemporaries(olderThanMs = STALE_TEMPORARY_MS): Promise<number> {
    await this.ensureDir();
    let removed = 0;
    for (const name of (await readdir(this.dir)).filter((n) => TEMPORARY.test(n))) {
      const path = join(this.dir, name);
      try {
        if (Date.now() - (await stat(path)).mtimeMs < olderThanMs) continue;
        await unlink(path);
        removed++;
      } catch {
        // Gone meanwhile (its write finished), or not removable: the next start tries again.
      }
    }
    return removed;
  }
}

/** A temporary file this old is no write in progress (an accept lasts at most its ack budget, ≤ 30 s). */
const STALE_TEMPORARY_MS = 60_000;

/** Attempts before an entry that keeps failing for another reason than the store moves to failed/. */
const MAX_ENTRY_ATTEMPTS = 5;

export interface DrainResult {
  applied: number;
  failed: number;
  left: number;
}

/**
 * Applies what the local buffer holds once the store answers again, on a timer (in AWS the SQS event
 * source does this). An entry is removed only after it was applied. While the store is down the pass
 * stops at the first entry (nothing else would work either) and the next pass tries again. Any other
 * failure (an entry that cannot be read or removed, a bug) is that entry's alone: the pass goes on to
 * the next one, and after MAX_ENTRY_ATTEMPTS such failures the entry moves to `failed/`. An entry that
 * cannot even be moved stays where it is: the move is tried again each pass, logged once.
 */
export class LocalBufferDrainer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DrainResult> | undefined;
  private stopped = true;
  private halting = false;
  private cleaned = false;
  private unreadableLogged = false;
  /** Failures other than the store's, per entry (in memory: a restart gives every entry a fresh count). */
  private readonly attempts = new Map<string, number>();
  /** Entries given up on (counted failed once) whose move to failed/ did not work yet. */
  private readonly unmoved = new Set<string>();
  readonly totals = { applied: 0, failed: 0 };

  constructor(
    private readonly services: RelayServices,
    private readonly buffer: FileIngressBuffer,
    private readonly intervalMs: number,
    private readonly print: (line: string) => void = () => {},
    private readonly maxAttempts = MAX_ENTRY_ATTEMPTS,
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce()
        .catch((error: unknown) =>
          this.services.log.error('ingress buffer drain failed', { error: (error as Error).message }),
        )
        .finally(() => this.schedule());
    }, this.intervalMs);
    this.timer.unref?.();
  }

  /** One pass now (or the one in progress). */
  async runOnce(): Promise<DrainResult> {
    this.running ??= this.drain().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async drain(): Promise<DrainResult> {
    const result: DrainResult = { applied: 0, failed: 0, left: 0 };
    if (!this.cleaned) {
      this.cleaned = true;
      await this.buffer.removeStaleTemporaries().catch(() => undefined);
    }
    let names: string[];
    try {
      names = await this.buffer.pending();
      this.unreadableLogged = false;
    } catch (error) {
      if (!this.unreadableLogged)
        this.services.log.error('local ingress buffer not readable', { error: (error as Error).message });
      this.unreadableLogged = true;
      return result;
    }
    const present = new Set(names);
    for (const name of this.attempts.keys()) if (!present.has(name)) this.attempts.delete(name);
    for (const name of this.unmoved) if (!present.has(name)) this.unmoved.delete(name);

    for (const [index, name] of names.entries()) {
      if (this.halting) {
        result.left += names.length - index;
        break;
      }
      if (this.unmoved.has(name)) {
        // Already counted and logged: only the move is tried again.
        if (await this.moved(name)) this.unmoved.delete(name);
        else result.left++;
        continue;
      }
      let settled = await settleBuffered(this.services, () => this.buffer.read(name));
      if (settled.kind === 'applied') {
        try {
          await this.buffer.remove(name);
          this.attempts.delete(name);
          result.applied++;
          continue;
        } catch (error) {
          // Applied but still here: retried like any error; applying it again changes nothing (its dedupe).
          settled = { kind: 'error', error: error as Error };
        }
      }
      const reason = settled.error.message;
      if (settled.error instanceof UnsealedBufferEntryError) {
        // Made up or edited outside the relay: never applied, kept in failed/ for a person to look at.
        this.services.log.error(
          'buffered callback refused: its seal does not match (not written by this relay); moved to failed/',
          { entry: name, error: reason },
        );
        this.print(`  ⇢ buffered callback ${name} refused (${reason}: not written by this relay) → failed/`);
        result.failed++;
        await this.giveUp(name, result);
        continue;
      }
      if (settled.kind === 'unappliable') {
        this.services.log.error('buffered callback cannot be applied; moved to failed/', {
          entry: name,
          error: reason,
        });
        this.print(`  ⇢ buffered callback ${name} cannot be applied (${reason}) → failed/`);
        result.failed++;
        await this.giveUp(name, result);
        continue;
      }
      if (settled.kind === 'storage') {
        result.left += names.length - index;
        break;
      }
      const attempts = (this.attempts.get(name) ?? 0) + 1;
      this.attempts.set(name, attempts);
      if (attempts < this.maxAttempts) {
        this.services.log.error('buffered callback not applied; retried', {
          entry: name,
          attempt: attempts,
          of: this.maxAttempts,
          error: reason,
        });
        result.left++;
        continue;
      }
      this.services.log.error('buffered callback not applied; moved to failed/', {
        entry: name,
        attempts,
        error: reason,
      });
      this.print(
        `  ⇢ buffered callback ${name} not applied after ${attempts} attempts (${reason}) → failed/`,
      );
      result.failed++;
      await this.giveUp(name, result);
    }
    if (result.applied) this.services.metrics?.count(BUFFERED_APPLIED_METRIC, result.applied);
    if (result.failed) this.services.metrics?.count(BUFFERED_FAILED_METRIC, result.failed);
    this.totals.applied += result.applied;
    this.totals.failed += result.failed;
    if (result.applied || result.failed)
      this.print(
        `  ⇢ ingress buffer drained: ${result.applied} callback${result.applied === 1 ? '' : 's'} applied` +
          `${result.failed ? `, ${result.failed} failed` : ''} (${result.left} left)`,
      );
    return result;
  }

  /** Moves an entry given up on to failed/; one that cannot be moved is logged once and tried again later. */
  private async giveUp(name: string, result: DrainResult): Promise<void> {
    this.attempts.delete(name);
    if (await this.moved(name)) return;
    this.unmoved.add(name);
    result.left++;
  }

  private async moved(name: string): Promise<boolean> {
    try {
      await this.buffer.moveToFailed(name);
      return true;
    } catch (error) {
      if (!this.unmoved.has(name))
        this.services.log.error('buffered callback could not be moved to failed/; left in place', {
          entry: name,
          error: (error as Error).message,
        });
      return false;
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halting = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
