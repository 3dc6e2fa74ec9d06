import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { FromServer, ToServer } from './servers/loopback';

const repoRoot = path.resolve(__dirname, '..');
const defaultStartTimeoutMs = 20_000;
const replyTimeoutMs = 5_000;
const stopTimeoutMs = 5_000;

export interface ServerProcess {
  port: number;
  /** The process's id, to read its /proc entries (bench/import.bench.ts samples its memory there). */
  pid: number;
  /** CPU time (user + system) the server process has used so far, in microseconds. */
  cpuMicros(): Promise<number>;
  /** The server process's resident set size now, in bytes. */
  rssBytes(): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Starts a bench/servers/*.ts script in its own Node process, so that on a 2-core machine the server and
 * the load generator (this process) each have a core rather than sharing one event loop.
 * stdout goes to /dev/null (it carries the app's log lines); stderr is shown, for crashes.
 */
export async function startServerProcess(
  script: string,
  env: Record<string, string> = {},
  startTimeoutMs = defaultStartTimeoutMs,
): Promise<ServerProcess> {
  // BENCH_CPU_PROF=<dir>: the server writes a V8 CPU profile there when it exits (node --cpu-prof), to see where its
  // time goes.
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', '--cpu-prof-dir', path.resolve(process.env.BENCH_CPU_PROF)]
    : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.join(__dirname, script)], {
    cwd: repoRoot,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  try {
    const listening = await nextMessage(child, 'listening', startTimeoutMs);
    return {
      port: listening.port,
      pid: child.pid!,
      async cpuMicros() {
        const { usage } = await ask(child, script, 'cpu');
        return usage.user + usage.system;
      },
      async rssBytes() {
        return (await ask(child, script, 'memory')).rssBytes;
      },
      stop: () => stopChild(child),
    };
  } catch (error) {
    await stopChild(child);
    throw error;
  }
}

/**
 * Asks the child for a figure. A child already gone is named with how it ended: sent to it, the question would
 * fail as ERR_IPC_CHANNEL_CLOSED, which says nothing of the cause.
 */
function ask<T extends ToServer['type']>(
  child: ChildProcess,
  script: string,
  type: T,
): Promise<Extract<FromServer, { type: T }>> {
  if (!child.connected)
    return Promise.reject(
      new Error(
        `The server process ${script} ended (${child.signalCode ?? child.exitCode ?? 'disconnected'}) before its ` +
          `'${type}' was asked.`,
      ),
    );
  const reply = nextMessage(child, type, replyTimeoutMs);
  // A send that fails is the child ending: the reply's wait names the exit.
  child.send({ type } satisfies ToServer, () => undefined);
  return reply;
}

/** The next message of the given type from the child; fails if the child exits or is silent too long. */
function nextMessage<T extends FromServer['type']>(
  child: ChildProcess,
  type: T,
  timeoutMs: number,
): Promise<Extract<FromServer, { type: T }>> {
  return new Promise((resolve, reject) => {
    const cleanup = (): void => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    const onMessage = (message: FromServer): void => {
      if (message.type !== type) return;
      cleanup();
      resolve(message as Extract<FromServer, { type: T }>);
    };
    const onExit = (code: number | null, signal: NodeJS.Signals | null): void => {
      cleanup();
      reject(new Error(`Server process exited (${signal ?? code}) while waiting for its '${type}' message.`));
    };
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`No '${type}' message from the server process within ${timeoutMs} ms.`));
    }, timeoutMs);
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** SIGTERM, then SIGKILL if the child has not exited in time; resolves once it is gone. */
function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), stopTimeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}
