import type { Knex } from 'knex';
import { classifyBorrowerLoans, reclassificationOf, type LoanClass } from '../../domain/loans/classification';
import { coverOf, guaranteeKinds, provisionFor } from '../../domain/loans/provisioning';
import { daysBetween } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { effectiveBusinessDate } from '../../domain/calendar';
import { recordBusinessEvent } from '../events/record-business-event';
import { reportCommitted, reportOnCommit } from '../metrics-channel';
import { classAccounts } from './class-accounts';

/**
 * The provisioning run (docs/domain.md §4): for one enterprise and one as-of date, every active loan is aged,
 * classified (with contagion across a borrower's loans) and provisioned. Loans go in id order, in batches;
 * each batch is one transaction holding its LoanProvision rows, its entries and the run's cursor, and a
 * loan that already has its row for the date is skipped: a rerun, or a batch retried after a worker died,
 * never posts twice.
 */

export interface ProvisioningRunRow {
  id: string;
  enterprise_id: string;
  as_of: string;
  trigger: 'schedule' | 'api';
  status: 'running' | 'completed' | 'failed';
  loans_processed: number;
  provisions_changed: number;
  loans_reclassified: number;
  amount_charged: string;
  amount_reversed: string;
}

export async function startProvisioningRun(
  knex: Knex,
  now: Date,
  input: { enterpriseId: string; asOf: string | null; trigger: 'schedule' | 'api'; requestedBy: string | null; requestId?: string | null },
): Promise<ProvisioningRunRow> {
  return inTransaction(knex, async (trx) => {
    const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: input.enterpriseId });
    if (configuration === undefined) throw new NotFoundError('The enterprise');
    const businessDate = effectiveBusinessDate(configuration, now);
    const asOf = input.asOf ?? businessDate;
    if (asOf > businessDate) {
      throw new AppError('unprocessable', 'as_of_after_business_date', `Provisions can be computed up to the business date ${businessDate}.`, [{ field: 'as_of', message: `as_of must not be after ${businessDate}` }]);
    }
    // Provisions move forward in time: a run for an earlier date than one already provisioned would compute
    // its deltas against a later state.
    const latest = await trx('loan_provisions').where({ enterprise_id: input.enterpriseId }).max({ as_of: 'as_of' }).first();
    if (latest?.as_of !== null && latest?.as_of !== undefined && asOf < latest.as_of) {
      throw new AppError('conflict', 'provisioning_date_passed', `Provisions were already computed for ${latest.as_of as string}: a run must be for that date or later.`);
    }
    const [run] = await trx('provisioning_runs').insert({ enterprise_id: input.enterpriseId, as_of: asOf, trigger: input.trigger, requested_by: input.requestedBy }).returning('*');
    if (input.requestedBy !== null) {
      await recordAudit(trx, { userId: input.requestedBy, requestId: input.requestId ?? null }, { action: 'provisioning_run.request', entityType: 'provisioning_run', entityId: run.id, enterpriseId: input.enterpriseId, details: { as_of: asOf } });
    }
    return run as ProvisioningRunRow;
  });
}

export async function markProvisioningRunFailed(knex: Knex, now: Date, input: { runId: string; failure: string }): Promise<void> {
  const failed = await knex('provisioning_runs').where({ id: input.runId, status: 'running' }).update({ status: 'failed', failure: input.failure, finished_at: now });
  if (failed > 0) reportCommitted({ work: 'provisioning_run', labels: { outcome: 'failed' } });
}

/** What one loan of a batch looks like to the run: its state, its borrower's, its covers; read in one query. */
interface LoanFacts {
  id: string;
  client_id: string;
  branch_id: string;
  outstanding_principal: string;
  classification: LoanClass;
  doubtful_since: string | null;
  provision_amount: string;
  days_past_due: number;
  litigious: boolean;
  real_estate: boolean;
  portfolio_account_code: string;
  oldest_due: string | null;
  cash_cover: string;
  eligible_cover: string;
  in_batch: boolean;
}

const kindsCovering = (cover: 'cash' | 'eligible'): string[] => guaranteeKinds.filter((kind) => coverOf(kind) === cover);

/**
 * One set-based query: the batch's loans and every other active loan of the same borrowers (contagion and
 * the borrower's age need them), each with its oldest installment unpaid after its due date and the value
 * of the guarantees in force, by cover.
 */
async function loanFacts(trx: Knex.Transaction, enterpriseId: string, asOf: string, afterId: string | null, batchSize: number): Promise<LoanFacts[]> {
  const result = await trx.raw<{ rows: LoanFacts[] }>(
    `WITH batch AS (
       SELECT l.id FROM loans l
       -- A loan repaid since its last provision is visited once more, for the reversal.
       WHERE l.enterprise_id = :enterpriseId AND (l.status = 'active' OR (l.status = 'closed' AND l.provision_amount > 0))
         AND l.disbursed_on <= :asOf AND (:afterId::uuid IS NULL OR l.id > :afterId::uuid)
       ORDER BY l.id LIMIT :batchSize
     )
     SELECT l.id, l.client_id, l.branch_id, l.outstanding_principal, l.classification, to_char(l.doubtful_since, 'YYYY-MM-DD') AS doubtful_since,
            l.provision_amount, l.days_past_due, l.litigious, p.real_estate, p.portfolio_account_code,
            l.id IN (SELECT id FROM batch) AS in_batch,
            (SELECT to_char(min(i.due_date), 'YYYY-MM-DD') FROM loan_installments i
              WHERE i.loan_id = l.id AND i.paid_on IS NULL AND i.due_date < :asOf
                AND (i.principal_paid < i.principal_due OR i.interest_paid < i.interest_due)) AS oldest_due,
            COALESCE(g.cash_cover, 0) AS cash_cover, COALESCE(g.eligible_cover, 0) AS eligible_cover
     FROM loans l
     JOIN loan_products p ON p.id = l.product_id
     LEFT JOIN LATERAL (
       SELECT sum(value) FILTER (WHERE kind = ANY(:cashKinds)) AS cash_cover,
              sum(value) FILTER (WHERE kind = ANY(:eligibleKinds)) AS eligible_cover
       FROM loan_guarantees WHERE loan_id = l.id AND start_date <= :asOf AND (end_date IS NULL OR end_date >= :asOf)
     ) g ON true
     WHERE ((l.status = 'active' AND l.disbursed_on <= :asOf) OR l.id IN (SELECT id FROM batch))
       AND l.client_id IN (SELECT b.client_id FROM loans b WHERE b.id IN (SELECT id FROM batch))
     ORDER BY l.id`,
    // Which kind covers what is the domain's rule (coverOf), not repeated here.
    { enterpriseId, asOf, afterId, batchSize, cashKinds: kindsCovering('cash'), eligibleKinds: kindsCovering('eligible') },
  );
  return result.rows;
}

export interface BatchProgress {
  status: 'running' | 'completed' | 'failed';
  loansProcessed: number;
}

type Assessment = ReturnType<typeof assess>;

/** What a batch writes at its end, in one statement each, and adds to its run's totals. */
interface BatchWrites {
  provisionRows: Record<string, unknown>[];
  loanUpdates: { id: string; classification: LoanClass; days_past_due: number; provision_amount: string; doubtful_since: string | null }[];
  totals: { changed: number; reclassified: number; charged: Money; reversed: Money };
}

export async function provisionBatch(knex: Knex, now: Date, input: { runId: string; batchSize: number }): Promise<BatchProgress> {
  return inTransaction(knex, async (trx) => {
    const run = await trx('provisioning_runs').where({ id: input.runId }).forUpdate().first();
    if (run === undefined) throw new NotFoundError('The provisioning run');
    if (run.status !== 'running') return { status: run.status, loansProcessed: run.loans_processed };
    const asOf = run.as_of as string;
    const facts = await loanFacts(trx, run.enterprise_id, asOf, run.cursor, input.batchSize);
    const batch = facts.filter((loan) => loan.in_batch);
    if (batch.length === 0) {
      await trx('provisioning_runs').where({ id: run.id }).update({ status: 'completed', finished_at: now });
      reportOnCommit(trx, { work: 'provisioning_run', labels: { outcome: 'completed' } });
      return { status: 'completed', loansProcessed: run.loans_processed };
    }
    const done = new Set<string>((await trx('loan_provisions').whereIn('loan_id', batch.map((loan) => loan.id)).where({ as_of: asOf }).pluck('loan_id')) as string[]);
    const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: run.enterprise_id }).throwIfNotFound();
    const classified = classify(facts, asOf);
    const writes: BatchWrites = { provisionRows: [], loanUpdates: [], totals: { changed: 0, reclassified: 0, charged: new Money(0), reversed: new Money(0) } };
    for (const loan of batch) {
      if (done.has(loan.id)) continue;
      await provisionLoan(trx, now, { run, asOf, writes }, loan, assess(loan, classified.get(loan.id)!, asOf, configuration.provisioningLadder));
    }
    await saveBatch(trx, writes);
    await advanceRun(trx, run.id, batch[batch.length - 1]!.id, writes);
    return { status: 'running', loansProcessed: run.loans_processed + writes.provisionRows.length };
  });
}

/** One loan of a batch: its reclassification and provision entries now, its rows into `writes` for the batch's end. */
async function provisionLoan(
  trx: Knex.Transaction,
  now: Date,
  batch: { run: ProvisioningRunRow; asOf: string; writes: BatchWrites },
  loan: LoanFacts,
  assessed: Assessment,
): Promise<void> {
  const { run, asOf, writes } = batch;
  const { loanClass, daysPastDue, doubtfulSince, outstanding, provision, previous, delta } = assessed;
  const event = { enterpriseId: run.enterprise_id, branchId: loan.branch_id, subjectId: loan.id, actorId: null, payload: { loan: loan.id, run: run.id, as_of: asOf } };
  if (assessed.reclassification !== null && outstanding.gt(0)) {
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: assessed.reclassification.kind,
      amount: outstanding,
      idempotencyKey: `reclassification:${loan.id}:${asOf}`,
      productAccounts: assessed.reclassification.productAccounts,
      description: `${loan.classification} to ${loanClass} as of ${asOf}`,
    });
  }
  if (loanClass !== loan.classification) writes.totals.reclassified += 1;
  if (!delta.isZero()) {
    writes.totals.changed += 1;
    if (delta.gt(0)) writes.totals.charged = writes.totals.charged.plus(delta);
    else writes.totals.reversed = writes.totals.reversed.plus(delta.negated());
    await recordBusinessEvent(trx, now, {
      ...event,
      kind: delta.gt(0) ? 'provision_charge' : 'provision_reversal',
      amount: delta.abs(),
      idempotencyKey: `provision:${loan.id}:${asOf}`,
      description: `provision as of ${asOf}`,
    });
  }
  writes.provisionRows.push({
    enterprise_id: run.enterprise_id, branch_id: loan.branch_id, loan_id: loan.id, as_of: asOf, run_id: run.id, days_past_due: daysPastDue, classification: loanClass,
    rate: provision.rate.toFixed(6), base: formatAmount(outstanding), uncovered: formatAmount(provision.base),
    amount: formatAmount(provision.amount), previous_amount: formatAmount(previous), delta: delta.toFixed(0),
  });
  // Most loans are unchanged from one day to the next: only the others are written back.
  if (loanClass !== loan.classification || daysPastDue !== loan.days_past_due || !delta.isZero() || doubtfulSince !== loan.doubtful_since) {
    writes.loanUpdates.push({
      id: loan.id,
      classification: loanClass,
      days_past_due: daysPastDue,
      provision_amount: formatAmount(provision.amount),
      doubtful_since: doubtfulSince,
    });
  }
}

/** The batch's provision rows and changed loans, one statement each. */
async function saveBatch(trx: Knex.Transaction, writes: BatchWrites): Promise<void> {
  if (writes.provisionRows.length > 0) {
    // One JSON parameter rather than 14 per row: binding thousands of parameters cost more than the insert.
    await trx.raw(
      `INSERT INTO loan_provisions (enterprise_id, branch_id, loan_id, as_of, run_id, days_past_due, classification, rate, base, uncovered, amount, previous_amount, delta)
       SELECT enterprise_id, branch_id, loan_id, as_of, run_id, days_past_due, classification, rate, base, uncovered, amount, previous_amount, delta
       FROM jsonb_to_recordset(?::jsonb) AS x(enterprise_id uuid, branch_id uuid, loan_id uuid, as_of date, run_id uuid, days_past_due int, classification text,
                                             rate numeric, base numeric, uncovered numeric, amount numeric, previous_amount numeric, delta numeric)`,
      [JSON.stringify(writes.provisionRows)],
    );
  }
  if (writes.loanUpdates.length > 0) {
    // One statement for the batch: the new state of each loan from one JSON list.
    await trx.raw(
      `UPDATE loans SET classification = v.classification, days_past_due = v.days_past_due, provision_amount = v.provision_amount::numeric, doubtful_since = v.doubtful_since::date
       FROM (SELECT * FROM jsonb_to_recordset(?::jsonb) AS x(id uuid, classification text, days_past_due int, provision_amount text, doubtful_since text)) v
       WHERE loans.id = v.id`,
      [JSON.stringify(writes.loanUpdates)],
    );
  }
}

/** The run moves past the batch's last loan, with the batch's counts and amounts added to its totals. */
async function advanceRun(trx: Knex.Transaction, runId: string, lastLoanId: string, writes: BatchWrites): Promise<void> {
  await trx('provisioning_runs')
    .where({ id: runId })
    .update({
      cursor: lastLoanId,
      loans_processed: trx.raw('loans_processed + ?', [writes.provisionRows.length]),
      provisions_changed: trx.raw('provisions_changed + ?', [writes.totals.changed]),
      loans_reclassified: trx.raw('loans_reclassified + ?', [writes.totals.reclassified]),
      amount_charged: trx.raw('amount_charged + ?::numeric', [formatAmount(writes.totals.charged)]),
      amount_reversed: trx.raw('amount_reversed + ?::numeric', [formatAmount(writes.totals.reversed)]),
    });
}

/** What the run decides for one loan at `asOf`: its class, provision and the entries they call for. No I/O. */
function assess(loan: LoanFacts, classified: { loanClass: LoanClass; ageDays: number; daysPastDue: number }, asOf: string, ladder: EnterpriseConfiguration['provisioningLadder']) {
  const { loanClass, ageDays, daysPastDue } = classified;
  // The downgrade date is kept while the loan stays doubtful: the regulatory minimum counts years from it.
  const doubtfulSince = loanClass !== 'doubtful' ? null : loan.classification === 'doubtful' ? loan.doubtful_since : asOf;
  const outstanding = new Money(loan.outstanding_principal);
  const provision = provisionFor({
    outstanding,
    loanClass,
    ageDays,
    cashCover: new Money(loan.cash_cover),
    eligibleCover: new Money(loan.eligible_cover),
    doubtfulSince,
    asOf,
    ladder,
  });
  const previous = new Money(loan.provision_amount);
  return {
    loanClass,
    daysPastDue,
    doubtfulSince,
    outstanding,
    provision,
    previous,
    delta: provision.amount.minus(previous),
    reclassification: reclassificationOf(loan.classification, loanClass, classAccounts(loan.portfolio_account_code)),
  };
}

/** Each loan's class, the borrower's age and its own days past due, borrower by borrower. */
function classify(facts: readonly LoanFacts[], asOf: string): Map<string, { loanClass: LoanClass; ageDays: number; daysPastDue: number }> {
  const byBorrower = new Map<string, LoanFacts[]>();
  for (const loan of facts) byBorrower.set(loan.client_id, [...(byBorrower.get(loan.client_id) ?? []), loan]);
  const result = new Map<string, { loanClass: LoanClass; ageDays: number; daysPastDue: number }>();
  for (const loans of byBorrower.values()) {
    const own = loans.map((loan) => ({ loan, daysPastDue: loan.oldest_due === null ? 0 : daysBetween(loan.oldest_due, asOf) }));
    const classes = classifyBorrowerLoans(own.map(({ loan, daysPastDue }) => ({
      loanId: loan.id,
      daysPastDue,
      realEstate: loan.real_estate,
      litigious: loan.litigious,
      previousClass: loan.classification,
    })));
    classes.forEach((row, index) => result.set(row.loanId, { loanClass: row.loanClass, ageDays: row.ageDays, daysPastDue: own[index]!.daysPastDue }));
  }
  return result;
}
