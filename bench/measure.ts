import os from 'node:os';
import { round } from './benchmark';
import { runLoad, type LoadOptions } from './load';
import { startServerProcess, type ServerProcess } from './server-process';

/** One server's figures under load; CPU shares are fractions of one core over the measured period. */
export interface ServerFigures {
  rps: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  requests: number;
  errors: number;
  /**
   * Server CPU time per successful request. Unlike rps it does not depend on whether the load generator
   * kept the server busy, so it is the fairer comparison when the generator is the bottleneck.
   */
  serverCpuMicrosPerRequest: number;
  serverCpu: number;
  /** This process, which runs the load generator. */
  loadGeneratorCpu: number;
  /** Every other process on the machine: well above 0 means the run competed for the cores. */
  otherCpu: number;
}

interface CpuSnapshot {
  wallNs: bigint;
  serverMicros: number;
  ownMicros: number;
  machineBusyMicros: number;
}

/** Starts `script` (bench/servers) in a child process, checks its answer, loads it, and stops it. */
export async function measureServer(
  script: string,
  path: string,
  load: Omit<LoadOptions, 'url'>,
  checkAnswer: (url: string) => Promise<void>,
): Promise<ServerFigures> {
  const server = await startServerProcess(script);
  try {
    const url = `http://127.0.0.1:${server.port}${path}`;
    await checkAnswer(url);
    // CPU is read when the warm-up ends and again when the last request is answered: the same period as rps.
    let atMeasureStart: Promise<CpuSnapshot> | undefined;
    const timer = setTimeout(() => (atMeasureStart = snapshot(server)), load.warmupMs);
    const figures = await runLoad({ url, ...load }).finally(() => clearTimeout(timer));
    const atEnd = await snapshot(server);
    if (atMeasureStart === undefined) throw new Error('The load ended before its warm-up did.');
    const cpu = cpuShares(await atMeasureStart, atEnd);
    return {
      rps: Math.round(figures.rps),
      p50Ms: round(figures.p50Ms, 3),
      p99Ms: round(figures.p99Ms, 3),
      maxMs: round(figures.maxMs, 3),
      requests: figures.requests,
      errors: figures.errors,
      serverCpuMicrosPerRequest: figures.requests > 0 ? round(cpu.serverMicros / figures.requests, 2) : 0,
      serverCpu: round(cpu.server, 2),
      loadGeneratorCpu: round(cpu.loadGenerator, 2),
      otherCpu: round(cpu.other, 2),
    };
  } finally {
    await server.stop();
  }
}

async function snapshot(server: ServerProcess): Promise<CpuSnapshot> {
  // Everything local first, synchronously, so the figures describe the same instant as closely as possible.
  const wallNs = process.hrtime.bigint();
  const own = process.cpuUsage();
  const machineBusyMicros = os
    .cpus()
    .reduce((sum, { times }) => sum + (times.user + times.nice + times.sys + times.irq) * 1000, 0);
  return { wallNs, ownMicros: own.user + own.system, machineBusyMicros, serverMicros: await server.cpuMicros() };
}

function cpuShares(from: CpuSnapshot, to: CpuSnapshot) {
  const wallMicros = Number(to.wallNs - from.wallNs) / 1000;
  const serverMicros = to.serverMicros - from.serverMicros;
  const ownMicros = to.ownMicros - from.ownMicros;
  const machineMicros = to.machineBusyMicros - from.machineBusyMicros; // os.cpus() counts in 10 ms ticks
  return {
    serverMicros,
    server: serverMicros / wallMicros,
    loadGenerator: ownMicros / wallMicros,
    other: Math.max(0, (machineMicros - serverMicros - ownMicros) / wallMicros),
  };
}
