import type { PgbenchReference } from './pgbench';

/**
 * One line of bench/README.md's table: what was measured against its target. Targets that are fractions of
 * pgbench are checked against the pgbench figure of the same run, on the same server.
 */
export interface TableLine {
  work: string;
  measured: string;
  target: string;
  met: boolean;
}

/** What a benchmark hands back: its JSON, a summary line, its lines of the table (none for the side measures). */
export interface BenchmarkReport {
  result: object;
  summary: string;
  lines?: readonly TableLine[];
}

/** One benchmark: bench/run.ts runs it, writes `result` to bench/results/<name>.json and prints `summary`. */
export interface Benchmark {
  name: string;
  run(): Promise<BenchmarkReport>;
}

/** Rounds for the JSON output: the figures vary more from run to run than the digits dropped. */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}

/** `perSecond` as a fraction of the run's pgbench tps, against a minimum fraction. */
export function ratioLine(
  work: string,
  perSecond: number,
  pgbench: PgbenchReference,
  minimum: number,
  extra = '',
): TableLine {
  const ratio = perSecond / pgbench.tps;
  return {
    work,
    measured: `${round(perSecond, 1)}/s = ${round(ratio, 2)} × pgbench (${round(pgbench.tps, 0)} tps)${extra}`,
    target: `≥ ${minimum} × pgbench`,
    met: ratio >= minimum,
  };
}
