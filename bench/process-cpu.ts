import fs from 'node:fs';
import type { Knex } from 'knex';

/**
 * CPU time of the processes a benchmark does not run itself (the Temporal dev server, PostgreSQL), read from
 * Linux's /proc: on a machine shared with other work, wall-clock latency says how loaded it was, CPU time per
 * operation says what the operation costs. Elsewhere (no /proc) the readers answer null.
 */

// /proc/<pid>/stat counts in clock ticks; USER_HZ is 100 on every Linux the benchmarks run on.
const microsPerTick = 10_000;

interface ProcStat {
  parentPid: number;
  /** This process's own user + system time, in microseconds. */
  ownMicros: number;
  /** That of its children it has waited for (PostgreSQL's ended backends), in microseconds. */
  reapedChildrenMicros: number;
}

function procStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // The command name, in parentheses, may hold spaces: the fields are counted after its closing one.
  const fields = text
    .slice(text.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return {
    parentPid: fields[1]!,
    ownMicros: (fields[11]! + fields[12]!) * microsPerTick,
    reapedChildrenMicros: (fields[13]! + fields[14]!) * microsPerTick,
  };
}

/** User + system CPU time of one process, in microseconds; null when it cannot be read. */
export function processCpuMicros(pid: number): number | null {
  return procStat(pid)?.ownMicros ?? null;
}

/**
 * A reader of the whole PostgreSQL server's CPU time (postmaster, its background processes and every backend,
 * ended ones included), found from one of `knex`'s connections; null when /proc cannot be read.
 */
export async function postgresCpuReader(knex: Knex): Promise<(() => number) | null> {
  const { rows } = (await knex.raw('SELECT pg_backend_pid() AS pid')) as { rows: { pid: number }[] };
  const postmaster = procStat(rows[0]!.pid)?.parentPid;
  if (postmaster === undefined) return null;
  return () => {
    const server = procStat(postmaster);
    if (server === null) return 0;
    let micros = server.ownMicros + server.reapedChildrenMicros;
    for (const entry of fs.readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      const child = procStat(Number(entry));
      if (child?.parentPid === postmaster) micros += child.ownMicros;
    }
    return micros;
  };
}
