import http from 'node:http';

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
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.connections });
  const targetOf = (connection: number) => new URL(typeof options.url === 'string' ? options.url : options.url(connection));
  const tally: Tally = { latenciesMs: new Float64Array(options.maxSamples), sampled: 0, requests: 0, errors: 0, serverErrors: 0, lastDoneNs: 0n };
  const startNs = process.hrtime.bigint();
  const measureFromNs = startNs + BigInt(options.warmupMs) * 1_000_000n;
  const stopAtNs = measureFromNs + BigInt(options.durationMs) * 1_000_000n;
  const worker = async (_: unknown, connection: number): Promise<void> => {
    const target = targetOf(connection);
    const body = typeof options.body === 'function' ? options.body(connection) : options.body;
    const intervalNs = BigInt(options.intervalMs ?? 0) * 1_000_000n;
    for (let sentNs = process.hrtime.bigint(); sentNs < stopAtNs; sentNs = await paced(sentNs + intervalNs)) {
      const status = await requestOnce(agent, target, body, options);
      if (sentNs >= measureFromNs) record(tally, status, sentNs, process.hrtime.bigint());
    }
  };
  try {
    await Promise.all(Array.from({ length: options.connections }, worker));
  } finally {
    agent.destroy();
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

/** One request; resolves with the answer's status once read to its end, 0 on a socket error or timeout. Never rejects. */
function requestOnce(agent: http.Agent, target: URL, body: string | undefined, options: LoadOptions): Promise<number> {
  return new Promise((resolve) => {
    const headers = { ...options.headers, ...(body === undefined ? {} : { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) }) };
    const request = http.request({ agent, method: options.method ?? 'GET', host: target.hostname, port: target.port, path: target.pathname + target.search, headers }, (response) => {
      response.on('end', () => resolve(response.statusCode ?? 0));
      response.on('error', () => resolve(0));
      response.resume(); // the body is drained, not kept: the content was checked once before the run
    });
    request.setTimeout(options.requestTimeoutMs, () => request.destroy(new Error('request timed out')));
    request.on('error', () => resolve(0));
    request.end(body);
  });
}
