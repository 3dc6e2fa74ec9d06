import type { Knex } from 'knex';
import {
  allocationEntries,
  allocationFields,
  allocationLines,
  allocationProblems,
  type AllocationAmounts,
  type AllocationFacts,
  type AllocationPolicy,
} from '../../domain/enterprise/result-allocation';
import type { ErrorCode } from '../../domain/error-catalogue';
import { AppError, NotFoundError, ValidationError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { ExerciceComptable } from '../../db/models/exercice-comptable.model';
import { inTransaction } from '../../db/transaction';
import { balancesByBranch, type YearBalanceRow } from '../accounts/year-balances';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from './configuration.activity';
import { postJournalEntry } from '../events/post-entry';
import { reverseEntries } from '../events/reverse-entries';
import { assertSameRequest, operationKey } from '../idempotency';
import { policyOf } from './result-allocation-policy.activity';
import type { ExerciceClosingRow } from './exercice-closing-row';

/**
 * The general assembly's allocation of a closed year's result (docs/architecture.md §9, docs/domain.md §7), in one
 * transaction: the year and its closing locked (two allocations of a year, or an allocation and a reopening,
 * queue), the rules checked on the balances at the assembly's date, one entry per branch holding the result,
 * dated the assembly's date in the next year. Idempotent by the client's key.
 */

export interface ResultAllocationRow {
  id: string;
  enterprise_id: string;
  exercice_id: string;
  closing_id: string;
  status: 'posted' | 'cancelled';
  assembly_date: string;
  assembly_reference: string;
  result: string;
  result_account: string;
  amounts: Record<string, string>;
  allocated_by: string | null;
  request: Record<string, unknown>;
  created_at: Date;
  cancelled_at: Date | null;
  cancelled_by: string | null;
  cancel_reason: string | null;
}

export interface AllocationInput {
  exerciceId: string;
  assemblyDate: string;
  assemblyReference: string;
  amounts: AllocationAmounts;
  idempotencyKey: string | null;
}

const conflict = (code: ErrorCode, message: string, field = 'exercice') =>
  new AppError('conflict', code, message, [{ field, message }]);

/** The year's closing, done (its à-nouveaux posted), locked: the result waits in 13 of the next year. */
async function doneClosing(trx: Knex.Transaction, year: ExerciceComptable): Promise<ExerciceClosingRow> {
  const closing: ExerciceClosingRow | undefined = await trx('exercice_closings')
    .where({ exercice_id: year.id })
    .whereIn('status', ['running', 'closed', 'failed'])
    .forUpdate()
    .first();
  if (closing?.status !== 'closed')
    throw conflict(
      'exercice_not_closed',
      `The accounting year ${year.code} is not closed: its result is allocated once its closing is done.`,
    );
  return closing;
}

/** The assembly meets in the year that received the result, not after the business date. */
async function assertAssemblyDate(
  trx: Knex.Transaction,
  now: Date,
  next: ExerciceComptable,
  date: string,
): Promise<void> {
  const problem = (message: string) => new ValidationError([{ field: 'assembly_date', message }]);
  if (date < next.startDate || date > next.endDate)
    throw problem(
      `assembly_date must be in the accounting year ${next.code} (${next.startDate} to ${next.endDate}), ` +
        `which holds the result`,
    );
  if (date > (await businessDateOf(trx, next.enterpriseId, now)))
    throw problem('assembly_date must not be after the business date');
}

const creditOf = (rows: readonly YearBalanceRow[], matches: (code: string) => boolean) =>
  rows.filter((row) => matches(row.code)).reduce((sum, row) => sum.minus(row.balance), new Money(0));

/** The facts the rules read at the assembly's date, from the next year's entries (its à-nouveaux included). */
function factsAt(rows: readonly YearBalanceRow[], result: Money, policy: AllocationPolicy): AllocationFacts {
  const under = (prefix: string) => (code: string) => code.startsWith(prefix);
  return {
    result,
    reserves: {
      general_reserve: creditOf(rows, under('111')),
      training_reserve: creditOf(rows, under('112')),
      statutory_reserves: creditOf(rows, under('113')),
      optional_reserves: creditOf(rows, under('114')),
    },
    subscribedCapital: creditOf(rows, under('100')),
    paidUpCapital: creditOf(rows, under('1000')),
    priorLosses: Money.max(0, creditOf(rows, under('122')).negated()),
    policy,
  };
}

const requestOf = (input: AllocationInput) => ({
  exercice: input.exerciceId,
  assembly_date: input.assemblyDate,
  assembly_reference: input.assemblyReference,
  ...Object.fromEntries(allocationFields.map((field) => [field, formatAmount(input.amounts[field])])),
});

/**
 * The result as account 13 holds it at the assembly's date, per branch and in all: the closing's result, else a
 * refusal; and the amounts checked against the rules.
 */
async function checkedResult(
  trx: Knex.Transaction,
  years: { year: ExerciceComptable; next: ExerciceComptable; closing: ExerciceClosingRow },
  input: AllocationInput,
) {
  const { year, next, closing } = years;
  const rows = await balancesByBranch(trx, { exerciceId: next.id, upTo: input.assemblyDate, branches: 'all' });
  const inResult = rows.filter((row) => row.code === closing.result_account);
  const result = creditOf(inResult, () => true);
  if (!result.eq(new Money(closing.result ?? 0))) {
    throw conflict(
      'result_not_in_13',
      `Account ${closing.result_account} holds ${formatAmount(result)} at ${input.assemblyDate}, ` +
        `not the result ${closing.result} of ${year.code}.`,
    );
  }
  const problems = allocationProblems(input.amounts, factsAt(rows, result, await policyOf(trx, year.enterpriseId)));
  if (problems.length > 0)
    throw new AppError(
      'unprocessable',
      problems[0]!.code,
      problems[0]!.message,
      problems.map(({ field, message }) => ({ field, message })),
    );
  return { inResult, result };
}

/** One entry per branch holding the result, each linked to the allocation. */
async function postAllocationEntries(
  trx: Knex.Transaction,
  actor: Actor,
  allocated: { year: ExerciceComptable; allocationId: string; entries: ReturnType<typeof allocationEntries> },
  input: AllocationInput,
): Promise<void> {
  const { year, allocationId, entries } = allocated;
  for (const entry of entries) {
    const entryId = await postJournalEntry(trx, {
      enterpriseId: year.enterpriseId,
      branchId: entry.branchId,
      entryDate: input.assemblyDate,
      lines: entry.lines,
      journal: 'AFF',
      description:
        `Affectation du résultat de l'exercice ${year.code} (AG du ${input.assemblyDate}, ` +
        `${input.assemblyReference})`,
      createdBy: actor.userId,
    });
    await trx('result_allocation_entries').insert({
      enterprise_id: year.enterpriseId,
      allocation_id: allocationId,
      entry_id: entryId,
    });
  }
}

export async function allocateResult(
  context: ActivityContext,
  actor: Actor,
  input: AllocationInput,
): Promise<{ allocation: ResultAllocationRow; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const year = await ExerciceComptable.query(trx).findById(input.exerciceId).forUpdate();
    if (year === undefined) throw new NotFoundError('The accounting year');
    const key = operationKey('result-allocation', actor, input.idempotencyKey);
    const request = requestOf(input);
    const earlier: ResultAllocationRow | undefined = await trx('result_allocations')
      .where({ enterprise_id: year.enterpriseId, idempotency_key: key })
      .first();
    if (earlier !== undefined) {
      assertSameRequest(earlier.request, request);
      return { allocation: earlier, replayed: true };
    }
    const closing = await doneClosing(trx, year);
    const posted = await trx('result_allocations').where({ exercice_id: year.id, status: 'posted' }).first('id');
    if (posted !== undefined)
      throw conflict(
        'result_already_allocated',
        `The result of ${year.code} is allocated already (allocation ${posted.id}).`,
      );
    const next = await ExerciceComptable.query(trx).findById(closing.next_exercice_id).throwIfNotFound();
    await assertAssemblyDate(trx, context.clock(), next, input.assemblyDate);

    const { inResult, result } = await checkedResult(trx, { year, next, closing }, input);

    const lines = allocationLines(input.amounts, result);
    const entries = allocationEntries(
      closing.result_account!,
      inResult.map((row) => ({ branchId: row.branch_id, balance: new Money(row.balance) })),
      lines,
    );
    const amounts = Object.fromEntries(lines.map((line) => [line.account, formatAmount(line.amount)]));
    const [allocation] = await trx('result_allocations')
      .insert({
        enterprise_id: year.enterpriseId,
        exercice_id: year.id,
        closing_id: closing.id,
        assembly_date: input.assemblyDate,
        assembly_reference: input.assemblyReference,
        result: closing.result,
        result_account: closing.result_account,
        amounts,
        allocated_by: actor.userId,
        idempotency_key: key,
        request,
      })
      .returning('*');
    await postAllocationEntries(trx, actor, { year, allocationId: allocation.id, entries }, input);
    await recordAudit(trx, actor, {
      action: 'result_allocation.create',
      entityType: 'result_allocation',
      entityId: allocation.id,
      enterpriseId: year.enterpriseId,
      details: {
        exercice: year.code,
        assembly_date: input.assemblyDate,
        assembly_reference: input.assemblyReference,
        result: closing.result,
        amounts,
      },
    });
    return { allocation: allocation as ResultAllocationRow, replayed: false };
  });
}

/** Why a year cannot be reopened: its result allocated (cancel the allocation first), or null. */
export async function allocatedRefusal(trx: Knex.Transaction, year: ExerciceComptable): Promise<AppError | null> {
  const posted = await trx('result_allocations').where({ exercice_id: year.id, status: 'posted' }).first('id');
  return posted === undefined
    ? null
    : conflict(
        'exercice_result_allocated',
        `The result of ${year.code} is allocated (allocation ${posted.id}): ` +
          `cancel the allocation before reopening the year.`,
      );
}

/**
 * Cancels an allocation (administrators, with a reason, audited): its entries reversed on their own date (the next
 * year must still be open), the row kept as history; the year may then be allocated again, or reopened.
 */
export async function cancelResultAllocation(
  context: ActivityContext,
  actor: Actor,
  input: { allocationId: string; reason: string },
): Promise<ResultAllocationRow> {
  return inTransaction(context.knex, async (trx) => {
    const found: ResultAllocationRow | undefined = await trx('result_allocations')
      .where({ id: input.allocationId })
      .first();
    if (found === undefined) throw new NotFoundError('The result allocation');
    // The year first, as allocating and reopening lock it: the three queue in one order.
    await ExerciceComptable.query(trx).findById(found.exercice_id).forUpdate();
    const allocation: ResultAllocationRow = await trx('result_allocations').where({ id: found.id }).forUpdate().first();
    if (allocation.status !== 'posted')
      throw new AppError('conflict', 'result_allocation_cancelled', 'The allocation is cancelled already.');
    await reverseEntries(
      trx,
      actor.userId,
      trx('result_allocation_entries').where('allocation_id', allocation.id).select('entry_id'),
      "Annulation de l'affectation",
    );
    const [cancelled] = await trx('result_allocations')
      .where({ id: allocation.id })
      .update({
        status: 'cancelled',
        cancelled_at: context.clock(),
        cancelled_by: actor.userId,
        cancel_reason: input.reason,
      })
      .returning('*');
    await recordAudit(trx, actor, {
      action: 'result_allocation.cancel',
      entityType: 'result_allocation',
      entityId: allocation.id,
      enterpriseId: allocation.enterprise_id,
      details: { reason: input.reason },
    });
    return cancelled as ResultAllocationRow;
  });
}
