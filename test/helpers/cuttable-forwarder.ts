import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A TCP forwarder to `endpoint` on a free port of 127.0.0.1, and the means to break it the two ways a
 * DynamoDB Local fails, without a JVM of the test's own (each start costs about 3 s of CPU, and a fresh
 * JVM pays again to warm up) and without harming the run's shared one:
 *
 *   cut()            every connection is refused and the open ones are ended, as when DynamoDB Local is killed
 *   stall(true)      bytes stop moving both ways, on open and new connections alike, as when its JVM is
 *                    stopped (SIGSTOP): requests hang, nothing is refused; stall(false) delivers what was
 *                    held, in order, as SIGCONT does
 */
export async function cuttableForwarder(
  endpoint: string,
): Promise<{ endpoint: string; cut(): Promise<void>; stall(on: boolean): void }> {
  const target = new URL(endpoint);
  const sockets = new Set<Socket>();
  let stalled = false;
  /** What arrived while stalled, per destination, in arrival order. */
  const held: [Socket, Buffer | 'end'][] = [];
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(socket);
      // Not pipe(): a piped source resumes itself whenever its destination drains, which would end a stall.
      socket.on('data', (chunk: Buffer) => {
        if (stalled) held.push([other, chunk]);
        else other.write(chunk);
      });
      socket.on('end', () => (stalled ? held.push([other, 'end']) : other.end()));
      socket.on('error', () => other.destroy());
      socket.on('close', () => {
        sockets.delete(socket);
        other.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    cut: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    stall(on: boolean) {
      stalled = on;
      if (on) return;
      for (const [destination, chunk] of held.splice(0)) {
        if (destination.destroyed) continue;
        if (chunk === 'end') destination.end();
        else destination.write(chunk);
      }
    },
  };
}
