import { type AddressInfo, connect, createServer, type Socket } from 'node:net';

/**
 * A TCP forwarder to `endpoint` on a free port of 127.0.0.1, and the means to cut it: after cut(), every
 * connection is refused and the open ones are ended, as when DynamoDB Local is killed, without a JVM of
 * the test's own to kill (each start costs about 3 s of CPU) and without harming the run's shared one.
 */
export async function cuttableForwarder(
  endpoint: string,
): Promise<{ endpoint: string; cut(): Promise<void> }> {
  const target = new URL(endpoint);
  const sockets = new Set<Socket>();
  const server = createServer((client) => {
    const upstream = connect(Number(target.port), target.hostname);
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      sockets.add(socket);
      socket.pipe(other);
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
  };
}
