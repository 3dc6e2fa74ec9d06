import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { simulateLoan } from '../domain/loans/simulation';
import { buildSchedule } from '../domain/loans/schedule';
import { Money } from '../domain/money';
import { round, type Benchmark } from './benchmark';

const measuredMs = 3000;

/** Repeats `work` for `measuredMs` after a warm-up and returns runs per second. */
function rate(work: () => unknown): number {
  const warmUntil = performance.now() + 500;
  while (performance.now() < warmUntil) work();
  let runs = 0;
  const start = performance.now();
  while (performance.now() - start < measuredMs) {
    work();
    runs += 1;
  }
  return runs / ((performance.now() - start) / 1000);
}

/**
 * Schedule generation in the pure domain: a 360-month constant-annuity schedule (10 000 000 XAF at 12 %,
 * Decimal arithmetic at 40 digits), alone and with its fees and TEG solved by bisection (what a simulation,
 * an application and a loan each compute).
 */
export const loanScheduleBenchmark: Benchmark = {
  name: 'loan-schedule',
  run: () => {
    const input = {
      method: 'constant_annuity' as const,
      principal: new Money(10_000_000),
      annualRate: new Money('0.12'),
      termPeriods: 360,
      frequency: 'monthly' as const,
      firstDueDate: '2027-01-31',
      principalGracePeriods: 0,
    };
    const schedules = rate(() => buildSchedule(input));
    const simulations = rate(() =>
      simulateLoan({
        method: 'constant_annuity',
        frequency: 'monthly',
        annualRate: new Money('0.12'),
        feeRate: new Money('0.01'),
        feeFixed: new Money(0),
        principal: new Money(10_000_000),
        termPeriods: 360,
        gracePeriods: 0,
        startDate: '2026-12-31',
      }),
    );
    const result = {
      name: 'loan-schedule',
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.availableParallelism(),
      schedule360PerSecond: round(schedules, 1),
      simulation360WithTegPerSecond: round(simulations, 1),
      notes: ['One thread, 3 s each after 0.5 s of warm-up; Decimal (decimal.js, precision 40) for every amount.'],
    };
    return Promise.resolve({
      result,
      summary:
        `360-period schedules ${result.schedule360PerSecond}/s; with fees and TEG ` +
        `${result.simulation360WithTegPerSecond}/s`,
    });
  },
};
