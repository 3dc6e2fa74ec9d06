import { clockStartingAt } from '../../runtime/clock';

/**
 * The tests' "now". Tests write literal dates of 2026 (an enterprise's first year, business dates, due dates,
 * statements' dates) while the product reads "today" from its injected clock (the year a new enterprise opens,
 * the business date while none is set, the business date moving only forward). With the real clock the suite
 * would break on 2027-01-01. So every clock a test hands the product (test apps, activities called directly,
 * test workers, API and worker processes through CLOCK_START) and every "now" a test computes is this one: each
 * test file starts at the same instant of 2026, whatever the calendar says, and time ticks as the real one
 * (token lifetimes, waits). PostgreSQL's now() and Temporal's timers keep the real time: the product reads
 * neither as a date (docs/architecture.md §1, "Dates in tests").
 */
export const testClock = clockStartingAt(new Date('2026-11-26T10:00:00Z'));
