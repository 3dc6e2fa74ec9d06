import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Knex } from 'knex';

const run = promisify(execFile);

/** The reference every benchmark's ratio is taken to: the real pgbench, TPC-B, on the benchmark's own server. */
export interface PgbenchReference {
  tps: number;
  latencyMs: number;
  command: string;
}

const scale = 1;
const clients = 8;
const threads = 2;
const seconds = 10;
const database = 'pgbench_reference';

/**
 * Runs PostgreSQL's own pgbench (`pgbench -i -s 1`, then `pgbench -c 8 -j 2 -T 10`, the built-in tpcb-like script)
 * in a database of its own on the same server as the benchmark, just before the benchmark's load, so that
 * each figure can be read as a fraction of what the server itself sustains on this machine in this run.
 */
export async function measurePgbench(knex: Knex, url: string): Promise<PgbenchReference> {
  await knex.raw(`DROP DATABASE IF EXISTS ${database}`);
  await knex.raw(`CREATE DATABASE ${database}`);
  const target = new URL(url);
  target.pathname = `/${database}`;
  try {
    await pgbench(['-i', '-q', '-s', String(scale), target.href]);
    const args = ['-c', String(clients), '-j', String(threads), '-T', String(seconds), target.href];
    const output = await pgbench(args);
    const tps = /tps = ([\d.]+) \(without initial connection time\)/.exec(output);
    const latency = /latency average = ([\d.]+) ms/.exec(output);
    if (tps === null || latency === null) throw new Error(`pgbench printed no tps:\n${output}`);
    return {
      tps: Number(tps[1]),
      latencyMs: Number(latency[1]),
      command: `pgbench -i -s ${scale}; pgbench ${args.slice(0, -1).join(' ')}`,
    };
  } finally {
    await knex.raw(`DROP DATABASE IF EXISTS ${database}`);
  }
}

async function pgbench(args: readonly string[]): Promise<string> {
  try {
    const { stdout, stderr } = await run('pgbench', args, { maxBuffer: 16 * 1024 * 1024 });
    return `${stdout}\n${stderr}`;
  } catch (error) {
    const failure = error as { code?: string; stderr?: string };
    if (failure.code === 'ENOENT')
      throw new Error(
        'pgbench is not on PATH: install the PostgreSQL client tools (apt-get install postgresql-client)',
      );
    throw new Error(`pgbench ${args[0]} failed: ${failure.stderr ?? String(error)}`);
  }
}
