/** One benchmark: bench/run.ts runs it, writes `result` to bench/results/<name>.json and prints `summary`. */
export interface Benchmark {
  name: string;
  run(): Promise<{ result: object; summary: string }>;
}

/** Rounds for the JSON output: the figures vary more from run to run than the digits dropped. */
export function round(value: number, digits: number): number {
  const scale = 10 ** digits;
  return Math.round(value * scale) / scale;
}
