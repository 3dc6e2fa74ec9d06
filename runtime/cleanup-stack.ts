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

/**
 * Runs `cleanup` once on the first SIGINT or SIGTERM, then exits 0. A second signal, given later, exits at
 * once (130), for the operator who does not want to wait for a drain.
 */
export function stopOnSignal(cleanup: CleanupStack, logger: Logger): void {
  let stoppingSince: number | undefined;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stoppingSince !== undefined) {
      if (Date.now() - stoppingSince < repeatedSignalWindowMs) return;
      logger.warn({ signal }, 'second signal: exiting without waiting');
      process.exit(130);
    }
    stoppingSince = Date.now();
    logger.info({ signal }, 'shutting down');
    void cleanup.runAll().then(() => process.exit(0));
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
}

/** Entry-point wrapper: any start-up failure is one clear line on stderr and exit code 1, not a stack trace. */
export function runMain(name: string, main: () => Promise<void>): void {
  main().catch((error: unknown) => {
    process.stderr.write(`coopbank ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
