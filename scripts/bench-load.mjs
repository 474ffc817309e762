// Load generator for npm run bench, run in a worker thread so that sending requests does not
// compete with the relay for the event loop it is measuring (a provider is another machine).
import { performance } from 'node:perf_hooks';
import { parentPort, workerData } from 'node:worker_threads';

const { url, references, concurrency, body } = workerData;
const latencies = [];
let failures = 0;
let next = 0;
const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < references.length) {
      const reference = references[next++];
      const t0 = performance.now();
      const res = await globalThis.fetch(`${url}/v1/momo/demo/requesttopay/${reference}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body,
      });
      await res.arrayBuffer();
      latencies.push(performance.now() - t0);
      if (res.status !== 200) failures++;
    }
  }),
);
parentPort.postMessage({ elapsedMs: performance.now() - started, latencies, failures });
