import net from 'node:net';

export interface LoadOptions {
  /** Loopback URL requested over and over; a function gives each connection its own (e.g. its own account). */
  url: string | ((connection: number) => string);
  /** GET by default; POST sends `body` (JSON) with each request. */
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  /** A function gives each connection its own body (e.g. its own loan). */
  body?: string | ((connection: number) => string);
  /** Concurrent keep-alive connections, each with one request in flight at a time (closed loop). */
  connections: number;
  /** Requests in this first period are made but not counted: JIT, socket set-up and heap growth settle first. */
  warmupMs: number;
  /** Requests started in this period are counted. */
  durationMs: number;
  /** A request that takes longer counts as an error, so a stuck server cannot stall the run. */
  requestTimeoutMs: number;
  /** Latency samples kept at most; beyond that requests are still counted but not sampled (memory bound). */
  maxSamples: number;
  /**
   * A fixed rate instead of as fast as answered: each connection starts a request every `intervalMs` (the next
   * one at once if an answer took longer), so the load is `connections × 1000 / intervalMs` per second.
   */
  intervalMs?: number;
}

export interface LoadResult {
  /** Successful (2xx) requests started in the measured period. */
  requests: number;
  /** Failed requests (non-2xx, socket error, timeout) started in the measured period. */
  errors: number;
  /** Those of the errors the server answered 5xx. */
  serverErrors: number;
  /** Successful requests per second over the measured period. */
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** From the start of the measured period to the last counted answer. */
  measuredSeconds: number;
}

interface Tally {
  latenciesMs: Float64Array;
  sampled: number;
  requests: number;
  errors: number;
  serverErrors: number;
  lastDoneNs: bigint;
}

/**
 * Closed-loop load: `connections` workers each send a request, wait for the whole answer, and send the next,
 * until the time is up. Latency is measured per request with the monotonic clock (hrtime), from just
 * before the request is written to the end of the response body.
 */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const tally: Tally = {
    latenciesMs: new Float64Array(options.maxSamples),
    sampled: 0,
    requests: 0,
    errors: 0,
    serverErrors: 0,
    lastDoneNs: 0n,
  };
  const startNs = process.hrtime.bigint();
  const measureFromNs = startNs + BigInt(options.warmupMs) * 1_000_000n;
  const stopAtNs = measureFromNs + BigInt(options.durationMs) * 1_000_000n;
  const connections: LoadConnection[] = [];
  const worker = async (_: unknown, index: number): Promise<void> => {
    const target = new URL(typeof options.url === 'string' ? options.url : options.url(index));
    const body = typeof options.body === 'function' ? options.body(index) : options.body;
    const connection = new LoadConnection(target, requestBytes(target, body, options));
    connections.push(connection);
    const intervalNs = BigInt(options.intervalMs ?? 0) * 1_000_000n;
    for (let sentNs = process.hrtime.bigint(); sentNs < stopAtNs; sentNs = await paced(sentNs + intervalNs)) {
      const status = await connection.send(options.requestTimeoutMs);
      if (sentNs >= measureFromNs) record(tally, status, sentNs, process.hrtime.bigint());
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    for (const connection of connections) connection.close();
  }
  return summarize(tally, measureFromNs);
}

/** Waits until `dueNs` (not at all if it has passed); resolves with the time it then is. */
async function paced(dueNs: bigint): Promise<bigint> {
  const waitMs = Number(dueNs - process.hrtime.bigint()) / 1e6;
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
  return process.hrtime.bigint();
}

function record(tally: Tally, status: number, sentNs: bigint, doneNs: bigint): void {
  tally.lastDoneNs = doneNs > tally.lastDoneNs ? doneNs : tally.lastDoneNs;
  if (status < 200 || status >= 300) {
    tally.errors += 1;
    if (status >= 500) tally.serverErrors += 1;
    return;
  }
  tally.requests += 1;
  if (tally.sampled < tally.latenciesMs.length) tally.latenciesMs[tally.sampled++] = Number(doneNs - sentNs) / 1e6;
}

function summarize(tally: Tally, measureFromNs: bigint): LoadResult {
  const sorted = tally.latenciesMs.subarray(0, tally.sampled).sort(); // typed-array sort is numeric
  const measuredSeconds = tally.lastDoneNs > measureFromNs ? Number(tally.lastDoneNs - measureFromNs) / 1e9 : 0;
  return {
    requests: tally.requests,
    errors: tally.errors,
    serverErrors: tally.serverErrors,
    rps: measuredSeconds > 0 ? tally.requests / measuredSeconds : 0,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length > 0 ? (sorted[sorted.length - 1] ?? 0) : 0,
    measuredSeconds,
  };
}

/** Nearest-rank percentile of ascending samples (0 when there are none). */
export function percentile(sorted: ArrayLike<number>, fraction: number): number {
  if (sorted.length === 0) return 0;
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(fraction * sorted.length)));
  return sorted[rank - 1] ?? 0;
}

/** The whole request, made once per connection: every request of a connection is the same. */
function requestBytes(target: URL, body: string | undefined, options: LoadOptions): Buffer {
  const headers: Record<string, string> = { host: target.host, ...options.headers };
  if (body !== undefined)
    Object.assign(headers, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) });
  const head = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.from(
    `${options.method ?? 'GET'} ${target.pathname}${target.search} HTTP/1.1\r\n${head}\r\n${body ?? ''}`,
  );
}

const headerEnd = Buffer.from('\r\n\r\n');

/**
 * One keep-alive HTTP/1.1 connection of the load, one request in flight at a time. A bare socket rather than
 * node:http: the clients share the machine's two cores with the server and PostgreSQL, and node:http's client
 * costs about half a millisecond of CPU per request (`cpuMsPerDeposit.clients` in the deposits benchmark), which
 * the server would otherwise not get; a load generator such as pgbench's is as lean. The answer is read to the
 * end of its body, by its Content-Length (every answer the benchmarks load has one; any other counts as a
 * failure), and its status returned; a socket error, a timeout or an unreadable answer gives 0 and a new socket
 * for the next request.
 */
class LoadConnection {
  private socket: net.Socket | null = null;
  private received: Buffer[] = [];
  private answer: ((status: number) => void) | null = null;

  constructor(
    private readonly target: URL,
    private readonly request: Buffer,
  ) {}

  /** Sends the request; resolves with the answer's status once its body is read, 0 on a failure. Never rejects. */
  send(timeoutMs: number): Promise<number> {
    const socket = this.socket ?? this.connect();
    return new Promise((resolve) => {
      const timer = setTimeout(() => this.finish(0), timeoutMs);
      this.answer = (status) => {
        clearTimeout(timer);
        resolve(status);
      };
      socket.write(this.request);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = null;
  }

  private connect(): net.Socket {
    const socket = net.connect({ host: this.target.hostname, port: Number(this.target.port), noDelay: true });
    // Events of a socket already dropped (its close comes later) must not touch the next request.
    socket.on('data', (chunk: Buffer) => this.socket === socket && this.read(chunk));
    socket.on('error', () => this.socket === socket && this.finish(0));
    socket.on('close', () => this.socket === socket && this.finish(0));
    this.socket = socket;
    return socket;
  }

  private read(chunk: Buffer): void {
    this.received.push(chunk);
    const data = this.received.length === 1 ? chunk : Buffer.concat(this.received);
    const end = data.indexOf(headerEnd);
    if (end < 0) return;
    const head = data.toString('latin1', 0, end);
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (length === null) return this.finish(0);
    if (data.length < end + headerEnd.length + Number(length[1])) return;
    this.received = [];
    const status = Number(head.slice(9, 12));
    if (/\r\nconnection: *close/i.test(head)) this.close();
    this.settle(status);
  }

  /** The request failed: the socket is dropped (what is left on it cannot be trusted) and the status is 0. */
  private finish(status: number): void {
    this.close();
    this.received = [];
    this.settle(status);
  }

  private settle(status: number): void {
    const answer = this.answer;
    this.answer = null;
    answer?.(status);
  }
}
