import type { Logger } from 'pino';

/**
 * The stop steps of everything a process started, run in reverse order of starting: the API stops before
 * the worker, the worker before Temporal, Temporal before PostgreSQL. Used both when start-up fails halfway
 * (nothing started is left running) and on SIGINT/SIGTERM.
 */
export class CleanupStack {
  private readonly steps: { name: string; run: () => Promise<void> }[] = [];

  constructor(private readonly logger: Logger) {}

  push(name: string, run: () => Promise<void>): void {
    this.steps.push({ name, run });
  }

  /** Runs every step even if one fails, so one stuck component does not leave the others running. */
  async runAll(): Promise<void> {
    for (let step = this.steps.pop(); step !== undefined; step = this.steps.pop()) {
      try {
        await step.run();
        this.logger.info({ component: step.name }, 'stopped');
      } catch (error) {
        this.logger.error({ err: error, component: step.name }, 'stop failed');
      }
    }
  }
}

// A Ctrl-C reaches us both from the terminal and relayed by npm: a repeat this soon is the same request.
const repeatedSignalWindowMs = 2000;
const parentPollMs = 500;

/**
 * Runs `cleanup` once on the first SIGINT or SIGTERM, then exits 0. A second signal, given later, exits at
 * once (130), for the operator who does not want to wait for a drain.
 *
 * With `watchParent` (the all-in-one), the death of the process that started us stops us the same way: `npm
 * start` killed outright, or a supervisor gone, must not leave us (and PostgreSQL, Temporal) running orphaned.
 * Polling `process.ppid` is the one portable sign (stdin may be a terminal kept open by others; no IPC channel
 * under npm). docs/architecture.md §1.
 */
export function stopOnSignal(cleanup: CleanupStack, logger: Logger, options: { watchParent?: boolean } = {}): void {
  let stoppingSince: number | undefined;
  const stop = (reason: string, repeatable: boolean): void => {
    if (stoppingSince !== undefined) {
      if (!repeatable || Date.now() - stoppingSince < repeatedSignalWindowMs) return;
      logger.warn({ signal: reason }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    stoppingSince = Date.now();
    logger.info({ signal: reason }, 'shutting down');
    void cleanup.runAll().then(() => process.exit(0));
  };
  process.on('SIGINT', (signal) => stop(signal, true));
  process.on('SIGTERM', (signal) => stop(signal, true));
  if (options.watchParent === true) {
    const parent = process.ppid;
    const watch = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(watch);
      stop('parent process exited', false);
    }, parentPollMs);
    watch.unref();
  }
}

/** Entry-point wrapper: any start-up failure is one clear line on stderr and exit code 1, not a stack trace. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`coopbank ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
