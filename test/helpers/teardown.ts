import type { TestFn } from 'ava';

/** Where a helper registers the cleanup of what it created: a test's `t`, or a whole file (see below). */
export interface Teardown {
  teardown(cleanup: () => Promise<void> | void): void;
}

/**
 * A Teardown for resources made in `test.before` (ava forbids t.teardown in hooks): cleanups run, newest
 * first, after the file's last test.
 */
export function fileTeardown(testFn: TestFn): Teardown {
  const cleanups: (() => Promise<void> | void)[] = [];
  testFn.after.always(async () => {
    for (const cleanup of cleanups.reverse()) await cleanup();
  });
  return { teardown: (cleanup) => void cleanups.push(cleanup) };
}
