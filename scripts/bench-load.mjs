// Load generator for npm run bench, run in a worker thread so that sending requests does not
// compete with the relay for the event loop it is measuring (a provider is another machine).
// The generator shares the machine's two cores with the relay and DynamoDB Local, so its own CPU per
// request must stay small: plain keep-alive TCP connections, each request written as prepared bytes,
// each answer read only for its status line and its length (Content-Length or chunked). node:http's
// client cost about twice as much CPU per request, which the bench then charged to the relay.
import { Buffer } from 'node:buffer';
import { connect } from 'node:net';
import { performance } from 'node:perf_hooks';
import { URL } from 'node:url';
import { parentPort, workerData } from 'node:worker_threads';

const { url, references, concurrency, body, headers = {} } = workerData;
const target = new URL(url);
const payload = Buffer.from(body);
const HEADER_END = Buffer.from('\r\n\r\n');
const latencies = [];
let failures = 0;
let next = 0;

/** The headers a deployed callback arrives with (bench.ts GATEWAY_HEADERS), so its receipt is the deployed one. */
const extraHeaders = Object.entries(headers)
  .map(([name, value]) => `${name}: ${value}\r\n`)
  .join('');

function requestBytes(reference) {
  const head =
    `PUT /v1/momo/demo/requesttopay/${reference} HTTP/1.1\r\n` +
    `host: ${target.host}\r\n` +
    extraHeaders +
    'content-type: application/json\r\n' +
    `content-length: ${payload.length}\r\n` +
    'connection: keep-alive\r\n\r\n';
  return Buffer.concat([Buffer.from(head, 'latin1'), payload]);
}

/** Where a complete answer ends in `buffer` (its status and byte length), or undefined while incomplete. */
function parseAnswer(buffer) {
  const headEnd = buffer.indexOf(HEADER_END);
  if (headEnd < 0) return undefined;
  const head = buffer.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return buffer.length >= end ? { status, end } : undefined;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) return { status, end: bodyStart };
  let at = bodyStart;
  for (;;) {
    const lineEnd = buffer.indexOf('\r\n', at);
    if (lineEnd < 0) return undefined;
    const size = Number.parseInt(buffer.toString('latin1', at, lineEnd), 16);
    const chunkEnd = lineEnd + 2 + size + 2;
    if (buffer.length < chunkEnd) return undefined;
    if (size === 0) return { status, end: chunkEnd };
    at = chunkEnd;
  }
}

/** One keep-alive connection sending requests one after another (like a provider's worker). */
function connection() {
  return new Promise((resolve) => {
    const socket = connect({ host: target.hostname, port: Number(target.port) });
    socket.setNoDelay(true);
    let pending = Buffer.alloc(0);
    let sentAt = 0;
    let inFlight = false;
    const sendNext = () => {
      if (next >= references.length) {
        socket.end();
        return;
      }
      sentAt = performance.now();
      inFlight = true;
      socket.write(requestBytes(references[next++]));
    };
    socket.on('connect', sendNext);
    socket.on('data', (chunk) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      const answer = parseAnswer(pending);
      if (!answer) return;
      inFlight = false;
      latencies.push(performance.now() - sentAt);
      if (answer.status !== 200) failures++;
      pending = pending.subarray(answer.end);
      sendNext();
    });
    const close = () => {
      // A connection the relay closed under a request: that request got no answer.
      if (inFlight) failures++;
      resolve();
    };
    socket.on('error', () => undefined);
    socket.on('close', close);
  });
}

const started = performance.now();
await Promise.all(Array.from({ length: concurrency }, connection));
parentPort.postMessage({ elapsedMs: performance.now() - started, latencies, failures });
