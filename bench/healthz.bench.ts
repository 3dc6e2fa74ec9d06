import assert from 'node:assert/strict';
import os from 'node:os';
import { round, type Benchmark, type TableLine } from './benchmark';
import type { LoadOptions } from './load';
import { measureServer, type ServerFigures } from './measure';

const load: Omit<LoadOptions, 'url'> = {
  connections: 32,
  warmupMs: 1_000,
  durationMs: 5_000,
  requestTimeoutMs: 5_000,
  // 16 MB of samples; far above what 5 s of loopback requests can produce here.
  maxSamples: 2_000_000,
};

/** A load generator this busy caps the rps of the server it measures (see notes). */
const saturatedCpu = 0.9;
/** Other processes using more than this share of a core during a run made the figures noisy. */
const busyOtherCpu = 0.2;

/**
 * GET /healthz through the whole Koa stack versus a bare node:http server sending the same JSON: what the
 * framework, middleware, logging and metrics cost per request, measured with the same load in one run.
 */
export const healthzBenchmark: Benchmark = {
  name: 'healthz',
  async run() {
    // One after the other, never together: each server gets a core to itself, the load generator the other.
    const koa = await measureServer('servers/koa-app.ts', '/healthz', load, checkAnswer);
    const bare = await measureServer('servers/bare-http.ts', '/healthz', load, checkAnswer);
    const ratio = {
      rps: round(koa.rps / bare.rps, 3),
      p50: round(koa.p50Ms / bare.p50Ms, 3),
      p99: round(koa.p99Ms / bare.p99Ms, 3),
      serverCpuPerRequest: round(koa.serverCpuMicrosPerRequest / bare.serverCpuMicrosPerRequest, 3),
    };
    const result = {
      name: 'healthz',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      cpuModel: os.cpus()[0]?.model ?? 'unknown',
      request: 'GET /healthz',
      connections: load.connections,
      warmupSeconds: load.warmupMs / 1000,
      durationSeconds: load.durationMs / 1000,
      koa,
      bare,
      ratio,
      notes: notes(koa, bare),
    };
    const figures = (f: ServerFigures): string =>
      `${f.rps} rps, p50 ${f.p50Ms} ms, p99 ${f.p99Ms} ms, ${f.serverCpuMicrosPerRequest} µs CPU/req`;
    const summary =
      `koa ${figures(koa)} | bare ${figures(bare)} | ` +
      `koa/bare: rps ${ratio.rps}, p50 ${ratio.p50}, p99 ${ratio.p99}, CPU/req ${ratio.serverCpuPerRequest}` +
      (koa.errors + bare.errors > 0 ? ` | ERRORS koa ${koa.errors}, bare ${bare.errors}` : '');
    return { result, summary, lines: [tableLine(koa, bare)] };
  },
};

/** Issue 32's target: the whole Koa stack serves at least half the requests per second of bare Node. */
function tableLine(koa: ServerFigures, bare: ServerFigures): TableLine {
  const ratio = koa.rps / bare.rps;
  return {
    work: '`GET /healthz` with the middleware chain vs bare Node',
    measured:
      `${round(ratio, 2)} × the requests/s (${koa.rps} vs ${bare.rps}; ` +
      `${koa.serverCpuMicrosPerRequest} vs ${bare.serverCpuMicrosPerRequest} µs CPU per request)`,
    target: "≥ 0.5 × bare Node's requests/s",
    met: ratio >= 0.5,
  };
}

/** Both servers must give the same answer, or the comparison would be meaningless. */
async function checkAnswer(url: string): Promise<void> {
  const response = await fetch(url);
  assert.equal(response.status, 200, `${url} answered ${response.status}`);
  assert.match(response.headers.get('content-type') ?? '', /^application\/json/);
  assert.deepEqual(await response.json(), { status: 'ok' });
}

function notes(koa: ServerFigures, bare: ServerFigures): string[] {
  const result = [
    'koa: createApp (api/app.ts) with its full middleware chain; production logger (pino, level info) writing one ' +
      'line per request to stdout, which is /dev/null; processMetrics on; knex and Temporal are configured but ' +
      'never contacted.',
    'bare: node:http answering the same JSON body, with no routing, middleware, logging or metrics.',
    'Each server runs alone in its own child process; the closed-loop keep-alive load generator runs in the ' +
      'parent, so server and generator each have one of the cores. Loopback (127.0.0.1) only.',
    'ratio = koa / bare: rps below 1 means Koa serves fewer requests; p50, p99 and serverCpuPerRequest above 1 ' +
      'mean Koa is slower or costlier.',
    'CPU shares are fractions of one core over the measured period (after warm-up).',
  ];
  for (const [name, figures] of [
    ['koa', koa],
    ['bare', bare],
  ] as const) {
    if (figures.loadGeneratorCpu >= saturatedCpu) {
      result.push(
        `During the ${name} run the load generator used ` +
          `${Math.round(figures.loadGeneratorCpu * 100)}% of a core, so it, ` +
          `not the server, limited ${name}'s rps and latency` +
          (name === 'bare'
            ? ': ratio.rps overstates Koa; ratio.serverCpuPerRequest is the fairer cost comparison.'
            : '.'),
      );
    }
    if (figures.otherCpu > busyOtherCpu) {
      result.push(
        `Other processes used ${Math.round(figures.otherCpu * 100)}% of a core during the ${name} run: ` +
          'its figures are lower and noisier than on an idle machine.',
      );
    }
  }
  return result;
}
