import net from 'node:net';

/** A TCP relay to a server, which a test can freeze: nothing more crosses it, in either direction. */
export interface TcpRelay {
  /** `127.0.0.1:port`, to give a process instead of the server's address. */
  address: string;
  /**
   * From now on no byte crosses, and new connections are held unanswered: the process behind sees its server go
   * silent, as when a network partition or a crash cuts it off, while its own work (database commits) goes on.
   */
  freeze(): void;
  close(): Promise<void>;
}

/**
 * Starts a relay to `target` (`host:port`). Tests put one between a worker and Temporal to make "the worker
 * committed its transaction but Temporal never heard of it" happen on purpose rather than by chance.
 */
export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const [host, port] = [target.slice(0, target.lastIndexOf(':')), Number(target.slice(target.lastIndexOf(':') + 1))];
  const pairs = new Set<[net.Socket, net.Socket | undefined]>();
  let frozen = false;
  const server = net.createServer((inbound) => {
    const pair: [net.Socket, net.Socket | undefined] = [inbound, undefined];
    pairs.add(pair);
    inbound.on('error', () => undefined);
    inbound.on('close', () => {
      pair[1]?.destroy();
      pairs.delete(pair);
    });
    if (frozen) return inbound.pause();
    const outbound = net.connect(port, host);
    pair[1] = outbound;
    outbound.on('error', () => inbound.destroy());
    outbound.on('close', () => inbound.destroy());
    inbound.pipe(outbound);
    outbound.pipe(inbound);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    address: `127.0.0.1:${(server.address() as net.AddressInfo).port}`,
    freeze() {
      frozen = true;
      for (const [inbound, outbound] of pairs) {
        inbound.unpipe();
        inbound.pause();
        outbound?.unpipe();
        outbound?.pause();
      }
    },
    async close() {
      for (const [inbound, outbound] of pairs) {
        inbound.destroy();
        outbound?.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
