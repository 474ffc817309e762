import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import { stopOnSignals, untilDone } from '../../../local/shutdown';

/** npm start's signal handling (stopOnSignals, as its entry point wires it) with a test's emitter for the process. */
function started() {
  const signals = new EventEmitter();
  const exits: number[] = [];
  const lines: string[] = [];
  const stops: { signal: string; hurry: AbortSignal }[] = [];
  let finish: (error?: Error) => void = () => {};
  stopOnSignals({
    stop: (signal, hurry) => {
      stops.push({ signal, hurry });
      return new Promise((resolve, reject) => {
        finish = (error) => (error ? reject(error) : resolve());
      });
    },
    exit: (code) => exits.push(code),
    write: (line) => lines.push(line),
    on: (signal, listener) => signals.on(signal, listener),
  });
  return { signals, exits, lines, stops, finish: (error?: Error) => finish(error) };
}

const turn = () => new Promise((resolve) => setImmediate(resolve));

describe('npm start on SIGINT and SIGTERM', () => {
  it('stops once, in order, and exits 0 when the stop is done (not before)', async () => {
    // Prepare
    const run = started();

    // Act
    run.signals.emit('SIGTERM');
    await turn();
    const exitedBeforeStopEnded = run.exits.length > 0;
    run.finish();
    await turn();

    // Assess
    expect(run.stops.map((s) => s.signal)).toEqual(['SIGTERM']);
    expect(exitedBeforeStopEnded).toBe(false);
    expect(run.exits).toEqual([0]);
  });

  it('a second signal starts no second stop and exits nothing early: it hurries the one running', async () => {
    // Prepare
    const run = started();
    run.signals.emit('SIGINT');

    // Act
    run.signals.emit('SIGINT');
    run.signals.emit('SIGTERM');
    await turn();
    const exitsWhileStopping = [...run.exits];
    run.finish();
    await turn();

    // Assess
    expect(run.stops).toHaveLength(1);
    expect(run.stops[0]!.hurry.aborted).toBe(true);
    expect(exitsWhileStopping).toEqual([]);
    expect(run.exits).toEqual([0]);
    expect(run.lines.filter((l) => l.includes('not waiting for the work in flight'))).toHaveLength(1);
  });

  it('says so and exits 1 when the stop fails', async () => {
    // Prepare
    const run = started();

    // Act
    run.signals.emit('SIGINT');
    run.finish(new Error('DynamoDB Local would not stop'));
    await turn();

    // Assess
    expect(run.exits).toEqual([1]);
    expect(run.lines.join('')).toContain('DynamoDB Local would not stop');
  });
});

describe('untilDone', () => {
  it('ends with the work, whether it succeeds or fails', async () => {
    await untilDone(Promise.resolve(1), new AbortController().signal);
    await untilDone(Promise.reject(new Error('failed')), new AbortController().signal);
  });

  it('ends when hurried, the work still running', async () => {
    // Prepare
    const hurry = new AbortController();
    const never = new Promise(() => {});

    // Act
    const waiting = untilDone(never, hurry.signal);
    hurry.abort();

    // Assess
    await expect(waiting).resolves.toBeUndefined();
  });
});
