import { randomUUID } from 'node:crypto';
import { mkdir, open, readdir, readFile, rename, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { applyBufferedCallback } from '../shared/app/apply-buffered-callback';
import {
  IngressBufferUnavailableError,
  UnappliableBufferedCallbackError,
} from '../shared/app/ingress-buffer';
import type { BufferedMessage, IngressBuffer } from '../shared/app/ports';
import type { RelayServices } from '../shared/app/services';
import { StorageUnavailableError } from '../shared/domain/errors';

/** Writes a file and its directory entry to disk before returning: a crash afterwards keeps it. */
async function writeDurably(dir: string, name: string, text: string): Promise<void> {
  const temporary = join(dir, `.${name}.tmp`);
  const file = await open(temporary, 'wx');
  try {
    await file.writeFile(text, 'utf8');
    await file.sync();
  } finally {
    await file.close();
  }
  // The rename makes the entry appear whole or not at all; the directory sync makes the rename durable.
  await rename(temporary, join(dir, name));
  const directory = await open(dir, 'r');
  try {
    await directory.sync();
  } finally {
    await directory.close();
  }
}

/**
 * The ingress buffer of `npm start`: one file per buffered callback in a spool directory (default
 * `.relay/ingress-buffer/`), written and fsynced before the provider gets its ack. Files are named by
 * time, so draining applies them in arrival order; a message that can never be applied moves to
 * `failed/` (the local dead-letter queue).
 */
export class FileIngressBuffer implements IngressBuffer {
  private ready: Promise<unknown> | undefined;

  constructor(
    readonly dir: string,
    private readonly print: (line: string) => void = () => {},
  ) {}

  private ensureDir(): Promise<unknown> {
    this.ready ??= mkdir(join(this.dir, 'failed'), { recursive: true });
    return this.ready;
  }

  async accept(message: BufferedMessage, options: { signal?: AbortSignal } = {}): Promise<{ id: string }> {
    const id = `${Date.now().toString().padStart(15, '0')}-${randomUUID()}`;
    try {
      options.signal?.throwIfAborted();
      await this.ensureDir();
      await writeDurably(this.dir, `${id}.json`, JSON.stringify(message));
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

  read(name: string): Promise<string> {
    return readFile(join(this.dir, name), 'utf8');
  }

  /** After the entry was applied: a crash before this line only means applying it again (deduped). */
  remove(name: string): Promise<void> {
    return unlink(join(this.dir, name));
  }

  moveToFailed(name: string): Promise<void> {
    return rename(join(this.dir, name), join(this.dir, 'failed', name));
  }
}

export interface DrainResult {
  applied: number;
  failed: number;
  left: number;
}

/**
 * Applies what the local buffer holds once the store answers again, on a timer (in AWS the SQS event
 * source does this). An entry is removed only after it was applied; while the store is still down
 * the pass stops at the first entry and the next pass tries again.
 */
export class LocalBufferDrainer {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<DrainResult> | undefined;
  private stopped = true;
  private halting = false;
  readonly totals = { applied: 0, failed: 0 };

  constructor(
    private readonly services: RelayServices,
    private readonly buffer: FileIngressBuffer,
    private readonly intervalMs: number,
    private readonly print: (line: string) => void = () => {},
  ) {}

  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      void this.runOnce().finally(() => this.schedule());
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
    let names: string[];
    try {
      names = await this.buffer.pending();
    } catch (error) {
      this.services.log.error('local ingress buffer not readable', { error: (error as Error).message });
      return result;
    }
    for (const [index, name] of names.entries()) {
      if (this.halting) break;
      try {
        await applyBufferedCallback(this.services, await this.buffer.read(name));
        await this.buffer.remove(name);
        result.applied++;
      } catch (error) {
        if (error instanceof UnappliableBufferedCallbackError) {
          await this.buffer.moveToFailed(name).catch(() => undefined);
          result.failed++;
          this.services.log.error('buffered callback cannot be applied; moved to failed/', {
            entry: name,
            error: error.message,
          });
          this.print(`  ⇢ buffered callback ${name} cannot be applied (${error.message}) → failed/`);
          continue;
        }
        if (!(error instanceof StorageUnavailableError))
          this.services.log.error('buffered callback not applied', {
            entry: name,
            error: (error as Error).message,
          });
        result.left = names.length - index;
        break;
      }
    }
    if (result.applied) this.services.metrics?.count('BufferedCallbacksApplied', result.applied);
    if (result.failed) this.services.metrics?.count('BufferedCallbacksFailed', result.failed);
    this.totals.applied += result.applied;
    this.totals.failed += result.failed;
    if (result.applied || result.failed)
      this.print(
        `  ⇢ ingress buffer drained: ${result.applied} callback${result.applied === 1 ? '' : 's'} applied` +
          `${result.failed ? `, ${result.failed} failed` : ''} (${result.left} left)`,
      );
    return result;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.halting = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }
}
