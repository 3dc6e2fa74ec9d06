import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** Messages between bench/server-process.ts (parent) and a server under test (child), over the IPC channel. */
export type ToServer = { type: 'cpu' } | { type: 'memory' };
export type FromServer =
  { type: 'listening'; port: number } | { type: 'cpu'; usage: NodeJS.CpuUsage } | { type: 'memory'; rssBytes: number };

/**
 * Serves `listener` on 127.0.0.1 at a free port and tells the parent the port over IPC. Both servers under
 * test go through this one function, so the only difference between them is the request listener.
 *
 * Binds to loopback explicitly rather than using runtime/services `listen`, which binds every interface.
 * The port goes over IPC, not stdout, because stdout is where the production logger writes: the parent
 * points it at /dev/null so each request pays for its log line without the parent having to read it.
 * Imports nothing else from the project, so the bare server loads no more code than it needs.
 */
export async function serveOnLoopback(listener: http.RequestListener): Promise<void> {
  const server = http.createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  reportReady((server.address() as AddressInfo).port);
}

/**
 * Tells the parent this process is ready (a server without a port, such as a worker, says port 0), then
 * answers its questions about CPU and memory until told to stop.
 */
export function reportReady(port: number): void {
  const send = process.send?.bind(process);
  if (send === undefined)
    throw new Error('Start this server with bench/run.ts: it needs an IPC channel to its parent.');
  process.on('message', (message: ToServer) => {
    if (message.type === 'cpu') send({ type: 'cpu', usage: process.cpuUsage() } satisfies FromServer);
    else send({ type: 'memory', rssBytes: process.memoryUsage.rss() } satisfies FromServer);
  });
  // The server holds no state worth a graceful close; exiting at once also ends it if the parent dies
  // (the IPC channel then disconnects), so no server outlives a run.
  process.once('SIGTERM', () => process.exit(0));
  process.once('disconnect', () => process.exit(0));
  send({ type: 'listening', port } satisfies FromServer);
}
