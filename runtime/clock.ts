/**
 * A process's "now": the real clock, or with a start (tests: CLOCK_START, test/helpers/clock.ts) the real clock
 * moved to begin at that instant and ticking as the real one from there.
 */
export function clockStartingAt(start: Date | undefined): () => Date {
  if (start === undefined) return () => new Date();
  const shiftMs = start.getTime() - Date.now();
  return () => new Date(Date.now() + shiftMs);
}
