// Load generator for npm run bench, run in a worker thread so that sending requests does not
// compete with the relay for the event loop it is measuring (a provider is another machine).
// node:http with keep-alive sockets rather than fetch: the generator shares the machine's two cores
// with the relay and DynamoDB Local, so its own CPU per request must stay small.
import { Buffer } from 'node:buffer';
import { Agent, request } from 'node:http';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { url, references, concurrency, body } = workerData;
const target = new URL(url);
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
const payload = Buffer.from(body);
const latencies = [];
let failures = 0;
let next = 0;

function put(reference) {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        agent,
        host: target.hostname,
        port: target.port,
        method: 'PUT',
        path: `/v1/momo/demo/requesttopay/${reference}`,
        headers: { 'content-type': 'application/json', 'content-length': payload.length },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const started = performance.now();
await Promise.all(
  Array.from({ length: concurrency }, async () => {
    while (next < references.length) {
      const reference = references[next++];
      const t0 = performance.now();
      const status = await put(reference).catch(() => 0);
      latencies.push(performance.now() - t0);
      if (status !== 200) failures++;
    }
  }),
);
agent.destroy();
parentPort.postMessage({ elapsedMs: performance.now() - started, latencies, failures });
