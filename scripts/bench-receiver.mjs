// Webhook receivers for npm run bench's "Deliveries" section, in a worker thread so that receiving does not
// compete with the delivery engine for the event loop it is measuring (a partner is another machine).
// - healthy: a node:http server that answers 204 at once and notes when each webhook-id arrived, as
//   performance.timeOrigin + performance.now() (a time every thread of the process shares).
// - dead: a TCP server that accepts connections and never answers (a black-holed endpoint): every attempt
//   to it waits for the engine's 15 s time-out.
import { createServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';
import { performance } from 'node:perf_hooks';
import { parentPort } from 'node:worker_threads';

const arrivals = [];
const held = new Set();

const healthy = createServer((req, res) => {
  const at = performance.timeOrigin + performance.now();
  const id = req.headers['webhook-id'];
  req.resume();
  req.on('end', () => {
    arrivals.push([id, at]);
    res.writeHead(204).end();
  });
});
healthy.keepAliveTimeout = 1000;

const dead = createTcpServer((socket) => {
  held.add(socket);
  socket.on('error', () => undefined);
  socket.on('close', () => held.delete(socket));
  // Read and drop: the request is taken, no answer ever comes.
  socket.resume();
});

const listen = (server) =>
  new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server.address().port)));

const [healthyPort, deadPort] = await Promise.all([listen(healthy), listen(dead)]);
parentPort.postMessage({ type: 'ready', healthyPort, deadPort });

parentPort.on('message', (message) => {
  if (message === 'take') {
    // The arrivals since the last take, and how many connections the dead endpoint holds now.
    parentPort.postMessage({ type: 'arrivals', arrivals: arrivals.splice(0), held: held.size });
  } else if (message === 'stop') {
    for (const socket of held) socket.destroy();
    healthy.closeAllConnections();
    Promise.all([new Promise((r) => healthy.close(r)), new Promise((r) => dead.close(r))]).then(() =>
      parentPort.close(),
    );
  }
});
