import { spawn, type ChildProcess } from 'node:child_process';

/**
 * A long-running child process (PostgreSQL, the Temporal dev server) owned by this process.
 *
 * Children run in their own process group (`detached`) so that a Ctrl-C in the terminal reaches only us:
 * we then stop them in order (API, worker, Temporal, PostgreSQL) instead of all dying at once. In exchange we
 * must never leave them behind: `stop()` waits for their exit, an `exit` hook kills any still running if this
 * process ends without a clean shutdown, and a watchdog stops them if this process is killed outright
 * (SIGKILL, the OOM killer), when no hook of ours runs (docs/architecture.md §1).
 */
export interface ChildService {
  readonly name: string;
  readonly pid: number;
  /** Resolves when the child has exited, with its exit code (null when killed by a signal). */
  readonly exited: Promise<number | null>;
  /** The last lines the child printed, to explain a failure. */
  recentOutput(): string;
  /** Sends `signal`, waits up to `graceMs`, then kills outright. Resolves once the child is gone. */
  stop(signal?: NodeJS.Signals, graceMs?: number): Promise<void>;
  /** Calls `handler` if the child exits without having been asked to stop (a crash while we depend on it). */
  onUnexpectedExit(handler: (code: number | null) => void): void;
}

export interface ChildServiceOptions {
  name: string;
  command: string;
  args: string[];
  /** Run as another OS user (PostgreSQL refuses to run as root). */
  uid?: number;
  gid?: number;
  env?: NodeJS.ProcessEnv;
  /** Receives every output line, e.g. to forward to the log at debug level. */
  onLine?: (line: string) => void;
}

const recentLinesMax = 30;

/**
 * The watchdog: a shell polling once a second whether we ($1) are alive; once we are gone it sends SIGINT to the
 * child's process group ($2, both PostgreSQL's and Temporal's clean stop), and SIGKILL if it is still there 30 s
 * later. A shell rather than a Node process: a few hundred kB, and it works wherever the child does (no prctl).
 */
const watchdogScript = [
  'while kill -0 "$1" 2>/dev/null; do sleep 1; done',
  'kill -s INT -- "-$2" 2>/dev/null || exit 0',
  'i=0; while kill -0 -- "-$2" 2>/dev/null && [ "$i" -lt 30 ]; do sleep 1; i=$((i+1)); done',
  'kill -s KILL -- "-$2" 2>/dev/null',
].join('\n');

/** Starts the watchdog of `child`; it is killed (its group: its `sleep` too) when the child exits. */
function watchOver(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const watchdog = spawn(
    '/bin/sh',
    ['-c', watchdogScript, 'coopbank-watchdog', String(process.pid), String(child.pid)],
    { detached: true, stdio: 'ignore' },
  );
  watchdog.unref();
  watchdog.on('error', () => undefined);
  child.on('exit', () => {
    try {
      if (watchdog.pid !== undefined) process.kill(-watchdog.pid, 'SIGKILL');
    } catch {
      // Already gone.
    }
  });
}
const running = new Set<ChildProcess>();

// Last resort: if this process exits without stopping its children (an uncaught error), take them along.
process.on('exit', () => {
  for (const child of running) child.kill('SIGKILL');
});

export function startChildService(options: ChildServiceOptions): ChildService {
  const child = spawn(options.command, options.args, {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
    uid: options.uid,
    gid: options.gid,
    env: options.env ?? process.env,
  });
  running.add(child);
  watchOver(child);
  const recent: string[] = [];
  const onData = (chunk: Buffer): void => {
    for (const line of chunk.toString('utf8').split('\n')) {
      if (line.trim() === '') continue;
      recent.push(line);
      if (recent.length > recentLinesMax) recent.shift();
      options.onLine?.(line);
    }
  };
  child.stdout?.on('data', onData);
  child.stderr?.on('data', onData);
  const exited = new Promise<number | null>((resolve) => {
    child.on('error', (error) => {
      recent.push(`${options.name} could not be started: ${error.message}`);
      running.delete(child);
      resolve(null);
    });
    child.on('exit', (code) => {
      running.delete(child);
      resolve(code);
    });
  });

  let stopRequested = false;
  return {
    name: options.name,
    pid: child.pid ?? -1,
    exited,
    recentOutput: () => recent.join('\n'),
    async stop(signal = 'SIGTERM', graceMs = 20_000) {
      stopRequested = true;
      if (!running.has(child)) return;
      child.kill(signal);
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(timer);
    },
    onUnexpectedExit(handler) {
      void exited.then((code) => {
        if (!stopRequested) handler(code);
      });
    },
  };
}

/**
 * Polls `probe` until it succeeds, failing early if the child exits and at the deadline otherwise.
 * The error carries the child's last output, which names the real cause (a port in use, a bad data dir…).
 */
export async function waitUntilReady(
  service: ChildService,
  probe: () => Promise<boolean>,
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  // Racing each probe against the child's exit reports a crash at once, even while a probe hangs.
  const exit = service.exited.then((code) => ({ exitCode: code }));
  while (Date.now() < deadline) {
    const outcome = await Promise.race([probe().catch(() => false), exit]);
    if (typeof outcome === 'object') {
      throw new Error(
        `${service.name} exited (code ${outcome.exitCode}) before it was ready:\n${service.recentOutput()}`,
      );
    }
    if (outcome) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  await service.stop('SIGKILL', 0);
  throw new Error(`${service.name} was not ready after ${timeoutMs / 1000} s:\n${service.recentOutput()}`);
}
