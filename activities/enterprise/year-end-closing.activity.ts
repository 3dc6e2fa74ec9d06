import type { Knex } from 'knex';
import {
  closingEntries,
  closingRefusal,
  nextYearOf,
  openingEntries,
  type BranchBalance,
  type BranchEntry,
  type YearFacts,
} from '../../domain/enterprise/year-end-closing';
import { AppError, NotFoundError } from '../../domain/errors';
import { monthEndsRequired } from '../../domain/enterprise/month-end';
import { formatAmount, Money } from '../../domain/money';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import { inTransaction } from '../../db/transaction';
import { balancesByBranch } from '../accounts/year-balances';
import { recordAudit, requestOriginOf } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { postJournalEntry } from '../events/post-entry';
import { changeExerciceStatus } from './exercices.activity';
import type { ExerciceClosingRow } from './exercice-closing-row';
import { firstMonthEndPeriod } from './month-end.activity';

/**
 * The closing of an accounting year (docs/architecture.md §9, docs/domain.md §7), in the steps the
 * yearEndClosing workflow runs: the request (checked here, at the API), the closing entries with the lock of
 * the year, then the opening entries of the next year. Each step is one transaction that starts by locking
 * the closing's row and ends by moving it to the next step with what it posted: a step retried after a lost
 * worker, or a closing run again, finds its work done and posts nothing twice.
 *
 * The entries go through the ledger's entry-posting function (postJournalEntry), not a business event: an
 * event carries one amount moved by its rule's legs and is dated with the business date, while a closing
 * entry has a line per account, dated the year's last day (the à-nouveaux its successor's first).
 */

const factsOf = (year: ExerciceComptable): YearFacts => ({
  code: year.code,
  startDate: year.startDate,
  endDate: year.endDate,
  status: year.status,
});

/** The months of the year whose month end is required (from the enterprise's first one) and not done. */
async function monthEndsNotDone(trx: Knex.Transaction, year: ExerciceComptable): Promise<string[]> {
  const required = monthEndsRequired(year, await firstMonthEndPeriod(trx, year.enterpriseId));
  if (required.length === 0) return [];
  const done = new Set(
    (
      await trx('month_end_runs')
        .where({ enterprise_id: year.enterpriseId, status: 'done' })
        .whereIn('period', required)
        .select('period')
    ).map((run) => run.period as string),
  );
  return required.filter((period) => !done.has(period));
}

/**
 * Whether the year's loans were provisioned as of its last day: a provisioning run completed at that date, or no
 * loan in the portfolio during the year (disbursed by its end, not closed or written off before it began).
 */
async function provisionedAtEnd(trx: Knex.Transaction, year: ExerciceComptable): Promise<boolean> {
  const run = await trx('provisioning_runs')
    .where({ enterprise_id: year.enterpriseId, as_of: year.endDate, status: 'completed' })
    .first('id');
  if (run !== undefined) return true;
  const loan = await trx('loans')
    .where({ enterprise_id: year.enterpriseId })
    .whereNotNull('disbursed_on')
    .where('disbursed_on', '<=', year.endDate)
    .where((open) => open.whereNull('closed_on').orWhere('closed_on', '>=', year.startDate))
    .where((kept) => kept.whereNull('written_off_on').orWhere('written_off_on', '>=', year.startDate))
    .first('id');
  return loan === undefined;
}

/** The year locked, with the refusal to close it now if any, and the next year. */
async function yearToClose(trx: Knex.Transaction, exerciceId: string) {
  const year = await ExerciceComptable.query(trx).findById(exerciceId).forUpdate();
  if (year === undefined) throw new NotFoundError('The accounting year');
  const others = (
    await ExerciceComptable.query(trx).where({ enterprise_id: year.enterpriseId }).whereNot('id', year.id)
  ).map((other) => ({ ...factsOf(other), id: other.id }));
  const refusal = closingRefusal({
    year: factsOf(year),
    others,
    monthEndsNotDone: await monthEndsNotDone(trx, year),
    provisionedAtEnd: await provisionedAtEnd(trx, year),
  });
  return { year, refusal, next: nextYearOf(year, others) };
}

/** The year's live closing (running, closed or failed: one at most), locked. */
const liveClosing = (trx: Knex.Transaction, exerciceId: string): Promise<ExerciceClosingRow | undefined> =>
  trx('exercice_closings')
    .where({ exercice_id: exerciceId })
    .whereIn('status', ['running', 'closed', 'failed'])
    .forUpdate()
    .first();

/**
 * Records the request to close a year, refused when it cannot be closed now (next year not open, previous year
 * open, already closed or being closed). A closing that failed is resumed where it stopped.
 */
export async function requestExerciceClosing(
  context: ActivityContext,
  actor: Actor,
  input: { exerciceId: string; reason: string },
): Promise<ExerciceClosingRow> {
  return inTransaction(context.knex, async (trx) => {
    const { year, refusal, next } = await yearToClose(trx, input.exerciceId);
    const live = await liveClosing(trx, year.id);
    if (live?.status === 'running')
      throw new AppError(
        'conflict',
        'exercice_closing_running',
        `The accounting year ${year.code} is being closed already.`,
      );
    if (live?.status !== 'failed' && refusal !== null) throw new AppError('conflict', refusal.code, refusal.message);
    const [closing] =
      live?.status === 'failed'
        ? await trx('exercice_closings')
            .where({ id: live.id })
            .update({ status: 'running', failure: null, finished_at: null })
            .returning('*')
        : await trx('exercice_closings')
            .insert({
              enterprise_id: year.enterpriseId,
              exercice_id: year.id,
              next_exercice_id: next!.id,
              requested_by: actor.userId,
            })
            .returning('*');
    await recordAudit(trx, actor, {
      action: 'exercice.closing_request',
      entityType: 'exercice',
      entityId: year.id,
      enterpriseId: year.enterpriseId,
      details: { code: year.code, reason: input.reason, closing: closing.id, resumed: live !== undefined },
    });
    return closing as ExerciceClosingRow;
  });
}

/** The closing locked, if it is running at `step`: else the step is done (or the closing over) and is skipped. */
async function closingAtStep(
  trx: Knex.Transaction,
  closingId: string,
  step: ExerciceClosingRow['step'],
): Promise<ExerciceClosingRow | undefined> {
  const closing: ExerciceClosingRow | undefined = await trx('exercice_closings')
    .where({ id: closingId })
    .forUpdate()
    .first();
  if (closing === undefined) throw new NotFoundError('The closing');
  return closing.status === 'running' && closing.step === step ? closing : undefined;
}

async function balancesOf(trx: Knex.Transaction, exerciceId: string): Promise<BranchBalance[]> {
  const rows = await balancesByBranch(trx, { exerciceId, branches: 'all' });
  return rows.map((row) => ({
    branchId: row.branch_id,
    account: row.code,
    accountClass: row.class,
    balance: new Money(row.balance),
  }));
}

async function postStep(
  trx: Knex.Transaction,
  closing: ExerciceClosingRow,
  step: 'closing' | 'opening',
  posting: { entries: BranchEntry[]; date: string; description: string },
) {
  for (const entry of posting.entries) {
    const entryId = await postJournalEntry(trx, {
      enterpriseId: closing.enterprise_id,
      branchId: entry.branchId,
      entryDate: posting.date,
      lines: entry.lines,
      journal: step === 'closing' ? 'CLO' : 'AN',
      description: posting.description,
      createdBy: closing.requested_by,
    });
    await trx('exercice_closing_entries').insert({
      enterprise_id: closing.enterprise_id,
      closing_id: closing.id,
      step,
      entry_id: entryId,
    });
  }
}

export interface StepOutcome {
  done: boolean;
  entries: number;
}

/**
 * Step 1: the result into 131 or 132 and every income and expense account of the year back to zero, one entry
 * per branch dated the year's last day; then the year is locked, in the same transaction. The year's row is
 * held from the start, so no posting slips in between the balances read and the lock.
 */
export async function closeIncomeAndExpenses(
  knex: Knex,
  now: Date,
  input: { closingId: string },
): Promise<StepOutcome & { result: string | null }> {
  return inTransaction(knex, async (trx) => {
    const closing = await closingAtStep(trx, input.closingId, 'requested');
    if (closing === undefined) return { done: false, entries: 0, result: null };
    const { year, refusal } = await yearToClose(trx, closing.exercice_id);
    if (refusal !== null) throw new AppError('conflict', refusal.code, refusal.message);
    const plan = closingEntries(await balancesOf(trx, year.id));
    await postStep(trx, closing, 'closing', {
      entries: plan.entries,
      date: year.endDate,
      description: `Clôture de l'exercice ${year.code}: charges et produits soldés au résultat`,
    });
    const asked = await requestOriginOf(trx, {
      entityType: 'exercice',
      entityId: year.id,
      action: 'exercice.closing_request',
    });
    await changeExerciceStatus(trx, now, { userId: closing.requested_by, ...asked }, year, {
      target: 'closed',
      reason: `closing ${closing.id}`,
    });
    const result = formatAmount(plan.result);
    await trx('exercice_closings')
      .where({ id: closing.id })
      .update({ step: 'income_closed', result, result_account: plan.resultAccount });
    return { done: true, entries: plan.entries.length, result };
  });
}

/**
 * Step 2: the à-nouveaux, each balance-sheet account of each branch with its closing balance, on the next year's first
 * day.
 */
export async function carryForwardBalances(knex: Knex, now: Date, input: { closingId: string }): Promise<StepOutcome> {
  return inTransaction(knex, async (trx) => {
    const closing = await closingAtStep(trx, input.closingId, 'income_closed');
    if (closing === undefined) return { done: false, entries: 0 };
    const year = await ExerciceComptable.query(trx).findById(closing.exercice_id).throwIfNotFound();
    const next = await ExerciceComptable.query(trx).findById(closing.next_exercice_id).throwIfNotFound();
    const entries = openingEntries(await balancesOf(trx, year.id));
    await postStep(trx, closing, 'opening', {
      entries,
      date: next.startDate,
      description: `À-nouveaux de l'exercice ${year.code}`,
    });
    await trx('exercice_closings')
      .where({ id: closing.id })
      .update({ step: 'carried_forward', status: 'closed', finished_at: now });
    return { done: true, entries: entries.length };
  });
}

export async function markExerciceClosingFailed(
  knex: Knex,
  now: Date,
  input: { closingId: string; failure: string },
): Promise<void> {
  await knex('exercice_closings')
    .where({ id: input.closingId, status: 'running' })
    .update({ status: 'failed', failure: input.failure, finished_at: now });
}
