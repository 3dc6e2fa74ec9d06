import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { round } from './benchmark';
import { tellerPassword } from './deposits-api.bench';
import type { HistoryFacts } from './history-seed';
import type { ServerProcess } from './server-process';

/**
 * What the history benchmarks share: the load average, the director's token, memory sampling, the other size's figures.
 */

/** The API of a history benchmark: its base URL and the director's headers. */
export type Api = { base: string; headers: Record<string, string> };

const pollMs = 250;

/** Waits for `done` to answer something, asking every `pollMs`; gives up after `limitSeconds`. */
export async function until<T>(what: string, limitSeconds: number, done: () => Promise<T | undefined>): Promise<T> {
  const giveUpAt = performance.now() + limitSeconds * 1000;
  for (;;) {
    const answer = await done();
    if (answer !== undefined) return answer;
    if (performance.now() > giveUpAt) throw new Error(`${what}: not over after ${limitSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

export async function getJson(api: Api, path: string): Promise<Record<string, unknown>> {
  const answer = await fetch(`${api.base}${path}`, { headers: api.headers });
  if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
}

/** Posts `body`, expecting `status` (202: a process started; 201: a row created). */
export async function postJson(api: Api, path: string, body: object, status = 202): Promise<Record<string, unknown>> {
  const answer = await fetch(`${api.base}${path}`, {
    method: 'POST',
    headers: api.headers,
    body: JSON.stringify(body),
  });
  if (answer.status !== status) throw new Error(`${path}: ${answer.status} ${await answer.text()}`);
  return (await answer.json()) as Record<string, unknown>;
}

export const loadAverage = (): number[] => os.loadavg().map((value) => round(value, 2));

/** A Bearer header of the history's director (bench/history-seed.ts), who reads every report. */
export async function directorHeaders(base: string): Promise<Record<string, string>> {
  const body = JSON.stringify({ username: 'director', password: tellerPassword });
  const token = await fetch(`${base}/api/v1/token/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  if (!token.ok) throw new Error(`sign-in failed: ${token.status} ${await token.text()}`);
  return { authorization: `Bearer ${((await token.json()) as { access: string }).access}` };
}

/** The largest resident set of each process, read every `everyMs` until stopped, in MB. */
export function rssPeaks(processes: Record<string, ServerProcess>, everyMs = 100) {
  const peaks: Record<string, number> = Object.fromEntries(Object.keys(processes).map((name) => [name, 0]));
  const samples: Record<string, number[]> = Object.fromEntries(Object.keys(processes).map((name) => [name, []]));
  let stopped = false;
  // A server that ends mid-run stops the sampling; its error is thrown by stop(), after the run's own error has had
  // its say (an unhandled rejection here would end the process first, hiding the cause).
  let failure: Error | null = null;
  const sampling = (async () => {
    while (!stopped) {
      for (const [name, child] of Object.entries(processes)) {
        const megabytes = (await child.rssBytes()) / 2 ** 20;
        peaks[name] = Math.max(peaks[name]!, megabytes);
        samples[name]!.push(megabytes);
      }
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  })().catch((error: unknown) => {
    failure = error instanceof Error ? error : new Error(String(error));
  });
  return {
    async stop() {
      stopped = true;
      await sampling;
      if (failure !== null) throw failure;
      const rounded = (values: Record<string, number>) =>
        Object.fromEntries(Object.entries(values).map(([name, value]) => [name, round(value, 0)]));
      return {
        peakMb: rounded(peaks),
        samplesMb: Object.fromEntries(
          Object.entries(samples).map(([name, values]) => [name, values.map((value) => round(value, 0))]),
        ),
      };
    },
  };
}

/** A size as a table names it: "1/50 size (1000 members, 100 000 lines)". */
export function sizeLabel(facts: HistoryFacts): string {
  const share = facts.size.scale === 1 ? 'full size' : `1/${round(1 / facts.size.scale, 0)} size`;
  return `${share} (${facts.size.members} members, ${facts.journalLines} lines)`;
}

/**
 * Peak RSS by size, carried from the benchmark's previous result file: the memory line compares the size measured
 * now with the other one measured last (the small and the full history are seeded and run apart).
 */
export function peaksBySize(benchmark: string, facts: HistoryFacts, peakMb: Record<string, number>) {
  const file = path.join(__dirname, 'results', `${benchmark}.json`);
  const previous = fs.existsSync(file)
    ? ((JSON.parse(fs.readFileSync(file, 'utf8')) as { peakRssBySize?: Record<string, PeakAtSize> }).peakRssBySize ??
      {})
    : {};
  const bySize: Record<string, PeakAtSize> = {
    ...previous,
    [String(facts.size.scale)]: { label: sizeLabel(facts), peakMb, date: new Date().toISOString() },
  };
  const scales = Object.keys(bySize)
    .map(Number)
    .sort((a, b) => a - b);
  const smallest = bySize[String(scales[0])]!;
  const largest = bySize[String(scales.at(-1))]!;
  const names = Object.keys(peakMb);
  const within =
    scales.length > 1 &&
    names.every((name) => (largest.peakMb[name] ?? Infinity) <= 1.3 * (smallest.peakMb[name] ?? 0));
  const text = (peak: PeakAtSize) => names.map((name) => `${name} ${peak.peakMb[name]} MB`).join(', ');
  const measured =
    scales.length > 1
      ? `${text(largest)} at ${largest.label} vs ${text(smallest)} at ${smallest.label}`
      : `${text(largest)} at ${largest.label} (one size measured so far)`;
  return { bySize, line: { measured, met: within } };
}

interface PeakAtSize {
  label: string;
  peakMb: Record<string, number>;
  date: string;
}
