import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import type { ClassAccounts, LoanClass } from '../../domain/loans/classification';
import { coverClassOf } from '../../domain/loans/doubtful-accounts';
import { coverOf, guaranteeKinds, type GuaranteeKind } from '../../domain/loans/provisioning';
import {
  planBatch,
  type BatchPlan,
  type BatchPosting,
  type LoanFacts,
  type ProvisionRow,
} from '../../domain/loans/provisioning-run';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { inTransaction } from '../../db/transaction';
import { restructuringStates } from './loan-restructurings.queries';
import { recordAudit } from '../audit';
import { effectiveBusinessDate } from '../../domain/calendar';
import { recordDatedEvent } from '../events/record-dated-event';
import { reportCommitted, reportOnCommit } from '../metrics-channel';
import { classAccounts } from './class-accounts';
import { reverseStandingAccruals } from './interest-accrual.activity';

/**
 * The provisioning run (docs/domain.md §4): for one enterprise and one as-of date, every active loan is aged,
 * classified (with contagion across a borrower's loans) and provisioned by the rules of
 * domain/loans/provisioning-run.ts. Borrowers go in id order, in batches; each batch is one transaction
 * holding its LoanProvision rows (only where a loan's position changed), its entries (one per branch, kind
 * and account pair, the sum of its loans) and the run's cursor. What a loan was last provisioned at is on the
 * loan itself, so a rerun, or a batch retried after a worker died, posts only what changed since: never twice.
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
  input: {
    enterpriseId: string;
    asOf: string | null;
    trigger: 'schedule' | 'api';
    requestedBy: string | null;
    requestId?: string | null;
    address?: string;
  },
): Promise<ProvisioningRunRow> {
  return inTransaction(knex, async (trx) => {
    const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: input.enterpriseId });
    if (configuration === undefined) throw new NotFoundError('The enterprise');
    const businessDate = effectiveBusinessDate(configuration, now);
    const asOf = input.asOf ?? businessDate;
    if (asOf > businessDate) {
      throw new AppError(
        'unprocessable',
        'as_of_after_business_date',
        `Provisions can be computed up to the business date ${businessDate}.`,
        [{ field: 'as_of', message: `as_of must not be after ${businessDate}` }],
      );
    }
    // Provisions move forward in time: a run for an earlier date than one already provisioned would compute
    // its deltas against a later state.
    const latest = await trx('provisioning_runs')
      .where({ enterprise_id: input.enterpriseId })
      .where((started) => started.where('status', 'completed').orWhere('loans_processed', '>', 0))
      .max({ as_of: 'as_of' })
      .first();
    if (latest?.as_of !== null && latest?.as_of !== undefined && asOf < latest.as_of) {
      throw new AppError(
        'conflict',
        'provisioning_date_passed',
        `Provisions were already computed for ${latest.as_of as string}: a run must be for that date or later.`,
      );
    }
    const [run] = await trx('provisioning_runs')
      .insert({
        enterprise_id: input.enterpriseId,
        as_of: asOf,
        trigger: input.trigger,
        requested_by: input.requestedBy,
      })
      .returning('*');
    if (input.requestedBy !== null) {
      await recordAudit(
        trx,
        { userId: input.requestedBy, requestId: input.requestId ?? null, address: input.address },
        {
          action: 'provisioning_run.request',
          entityType: 'provisioning_run',
          entityId: run.id,
          enterpriseId: input.enterpriseId,
          details: { as_of: asOf },
        },
      );
    }
    return run as ProvisioningRunRow;
  });
}

export async function markProvisioningRunFailed(
  knex: Knex,
  now: Date,
  input: { runId: string; failure: string },
): Promise<void> {
  const failed = await knex('provisioning_runs')
    .where({ id: input.runId, status: 'running' })
    .update({ status: 'failed', failure: input.failure, finished_at: now });
  if (failed > 0) reportCommitted({ work: 'provisioning_run', labels: { outcome: 'failed' } });
}

/**
 * A row of the facts query: one loan of the batch's borrowers, its arrears, its covers and its latest LoanProvision
 * row.
 */
interface LoanFactsRow {
  id: string;
  client_id: string;
  branch_id: string;
  outstanding_principal: string;
  classification: LoanClass;
  doubtful_since: string | null;
  provision_amount: string;
  doubtful_account_code: string | null;
  provision_account_code: string | null;
  days_past_due: number;
  litigious: boolean;
  real_estate: boolean;
  portfolio_account_code: string;
  oldest_due: string | null;
  cash_cover: string | null;
  eligible_cover: string | null;
  /** The kinds of its guarantees that count at the date (null: none), which say its cover class. */
  cover_kinds: GuaranteeKind[] | null;
  latest_classification: LoanClass | null;
  latest_rate: string;
  latest_base: string;
  latest_uncovered: string;
  latest_amount: string;
}

const kindsCovering = (cover: 'cash' | 'eligible'): string[] =>
  guaranteeKinds.filter((kind) => coverOf(kind) === cover);

/** Below every uuid: the cursor of a run that has not started. */
const beforeFirstBorrower = '00000000-0000-0000-0000-000000000000';

// A loan the run visits: active, or closed since its last run with provisions left to reverse. The first two
// terms are the predicate of the loans_provisioning index (see its migration), which the batch queries walk.
const visitedLoan = `(l.status = 'active' OR l.provision_amount > 0)
  AND ((l.status = 'active' AND l.disbursed_on <= :asOf) OR l.status = 'closed')`;

/**
 * The last borrower of the batch after `after`: the borrower of its `batchSize`-th loan, so that a borrower's
 * loans are never split across batches (contagion). Null when the rest of the portfolio fits in the batch.
 */
async function batchBound(
  trx: Knex.Transaction,
  enterpriseId: string,
  asOf: string,
  after: string,
  batchSize: number,
): Promise<string | null> {
  const result = await trx.raw<{ rows: { client_id: string }[] }>(
    `SELECT l.client_id FROM loans l WHERE l.enterprise_id = :enterpriseId AND l.client_id > :after AND ${visitedLoan}
      ORDER BY l.client_id OFFSET :offset LIMIT 1`,
    { enterpriseId, asOf, after, offset: batchSize - 1 },
  );
  return result.rows[0]?.client_id ?? null;
}

/**
 * One set-based query: every visited loan of the borrowers after `after` up to `bound`, with its oldest
 * installment unpaid after its due date, the value of its guarantees in force by cover and its latest row.
 * Each of those is read for the whole batch at once (an index scan over the batch's sorted loan ids) rather
 * than loan by loan: most loans have none of them, and the scan visits each index page once.
 */
async function loanFactsRows(
  trx: Knex.Transaction,
  enterpriseId: string,
  asOf: string,
  { after, bound }: { after: string; bound: string | null },
): Promise<LoanFactsRow[]> {
  const result = await trx.raw<{ rows: LoanFactsRow[] }>(
    `WITH batch AS MATERIALIZED (
       SELECT l.id, l.client_id, l.branch_id, l.product_id, l.outstanding_principal, l.classification, l.doubtful_since,
         l.provision_amount, l.days_past_due, l.litigious, l.doubtful_account_code, l.provision_account_code
       FROM loans l
       WHERE l.enterprise_id = :enterpriseId AND l.client_id > :after
         AND (:bound::uuid IS NULL OR l.client_id <= :bound::uuid) AND ${visitedLoan}
     ), arrears AS (
       SELECT i.loan_id, min(i.due_date) AS oldest_due FROM loan_installments i
       WHERE i.loan_id = ANY(ARRAY(SELECT id FROM batch)) AND i.paid_on IS NULL AND i.due_date < :asOf
         AND (i.principal_paid < i.principal_due OR i.interest_paid < i.interest_due)
       GROUP BY i.loan_id
     ), covers AS (
       -- Guarantees count once confirmed (in force); a pledged deposit's cover is its hold, below. Every kind in force
       -- says the cover class (coverClassOf), but a pledged deposit recorded before holds (no account) covers nothing.
       SELECT loan_id, sum(value) FILTER (WHERE kind = ANY(:eligibleKinds)) AS eligible_cover,
              array_agg(DISTINCT kind) FILTER (WHERE compte_client_id IS NOT NULL
                OR kind <> 'pledged_deposit') AS cover_kinds
       FROM loan_guarantees
       WHERE loan_id = ANY(ARRAY(SELECT id FROM batch)) AND status = 'in_force' AND start_date <= :asOf
         AND (end_date IS NULL OR end_date >= :asOf)
       GROUP BY loan_id
     ), holds AS (
       -- Each hold of the accounts pledged for the batch,
       -- with what of it the account's balance still backs (earlier holds first).
       SELECT h.loan_id, h.status, h.start_date, h.kind,
              greatest(0, least(h.value, c.balance - coalesce(sum(h.value) OVER (
                PARTITION BY h.compte_client_id ORDER BY h.created_at, h.guarantee_id
                ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0))) AS backed
       FROM guarantee_holds h JOIN comptes_clients c ON c.id = h.compte_client_id
       WHERE h.compte_client_id IN (SELECT compte_client_id FROM guarantee_holds
         WHERE loan_id = ANY(ARRAY(SELECT id FROM batch)))
     ), cash AS (
       -- A guarantor's savings held under a personal guarantee (issue 30)
       -- come before later holds of the account but cover nothing.
       SELECT loan_id, sum(backed) AS cash_cover FROM holds
       WHERE status = 'in_force' AND start_date <= :asOf AND kind = ANY(:cashKinds)
         AND loan_id = ANY(ARRAY(SELECT id FROM batch)) GROUP BY loan_id
     ), latest AS (
       -- Only the loans whose position rows follow (domain/loans/provisioning-run.ts, followed):
       -- the others have none to compare.
       SELECT DISTINCT ON (loan_id) loan_id, classification, rate, base, uncovered, amount FROM loan_provisions
       WHERE loan_id = ANY(ARRAY(SELECT id FROM batch WHERE classification <> 'performing' OR provision_amount > 0))
       ORDER BY loan_id, as_of DESC
     )
     SELECT b.id, b.client_id, b.branch_id, b.outstanding_principal, b.classification,
            to_char(b.doubtful_since, 'YYYY-MM-DD') AS doubtful_since, b.provision_amount,
            b.doubtful_account_code, b.provision_account_code, c.cover_kinds, b.days_past_due, b.litigious,
            p.real_estate, p.portfolio_account_code, to_char(a.oldest_due, 'YYYY-MM-DD') AS oldest_due,
            cc.cash_cover, c.eligible_cover,
            lp.classification AS latest_classification, lp.rate AS latest_rate, lp.base AS latest_base,
              lp.uncovered AS latest_uncovered, lp.amount AS latest_amount
     FROM batch b
     JOIN loan_products p ON p.id = b.product_id
     LEFT JOIN arrears a ON a.loan_id = b.id
     LEFT JOIN covers c ON c.loan_id = b.id
     LEFT JOIN cash cc ON cc.loan_id = b.id
     LEFT JOIN latest lp ON lp.loan_id = b.id
     ORDER BY b.client_id, b.id`,
    // Which kind covers what is the domain's rule (coverOf), not repeated here.
    { enterpriseId, asOf, after, bound, eligibleKinds: kindsCovering('eligible'), cashKinds: kindsCovering('cash') },
  );
  return result.rows;
}

const zero = new Money(0);
/** Most loans have no guarantee and no provision: one shared zero rather than a parse each. */
const moneyOrZero = (amount: string | null): Money => (amount === null || amount === '0' ? zero : new Money(amount));

/** The facts in the domain's terms. */
function loanFactsOf(row: LoanFactsRow, accountsByPortfolio: Map<string, ClassAccounts>): LoanFacts {
  let accounts = accountsByPortfolio.get(row.portfolio_account_code);
  if (accounts === undefined)
    accountsByPortfolio.set(row.portfolio_account_code, (accounts = classAccounts(row.portfolio_account_code)));
  const latest =
    row.latest_classification === null
      ? null
      : {
          classification: row.latest_classification,
          rate: row.latest_rate,
          base: row.latest_base,
          uncovered: row.latest_uncovered,
          amount: row.latest_amount,
        };
  return {
    id: row.id,
    clientId: row.client_id,
    branchId: row.branch_id,
    outstanding: new Money(row.outstanding_principal),
    classification: row.classification,
    doubtfulSince: row.doubtful_since,
    provisionAmount: moneyOrZero(row.provision_amount),
    daysPastDue: row.days_past_due,
    litigious: row.litigious,
    realEstate: row.real_estate,
    classAccounts: accounts,
    doubtfulAccount: row.doubtful_account_code,
    provisionAccount: row.provision_account_code,
    cover: row.cover_kinds === null ? 'other' : coverClassOf(row.cover_kinds),
    oldestDue: row.oldest_due,
    cashCover: moneyOrZero(row.cash_cover),
    eligibleCover: moneyOrZero(row.eligible_cover),
    latest,
  };
}

export interface BatchProgress {
  status: 'running' | 'completed' | 'failed';
  loansProcessed: number;
}

/**
 * One batch of a run, in one transaction: the borrowers after the run's cursor, up to about `batchSize` loans.
 * Repeatable read: the batch decides on one snapshot, and a loan changed by another transaction since (a
 * repayment, another run) makes its update fail with a serialization error, so the batch is decided again
 * rather than posting from a stale state. A retried batch cannot post twice: its entries, its rows and the
 * cursor commit together, and the run's row is locked first.
 */
export async function provisionBatch(
  knex: Knex,
  now: Date,
  input: { runId: string; batchSize: number },
): Promise<BatchProgress> {
  return inTransaction(
    knex,
    async (trx) => {
      const run = await trx('provisioning_runs').where({ id: input.runId }).forUpdate().first();
      if (run === undefined) throw new NotFoundError('The provisioning run');
      if (run.status !== 'running') return { status: run.status, loansProcessed: run.loans_processed };
      const asOf = run.as_of as string;
      const after = (run.cursor as string | null) ?? beforeFirstBorrower;
      const bound = await batchBound(trx, run.enterprise_id, asOf, after, input.batchSize);
      const accountsByPortfolio = new Map<string, ClassAccounts>();
      const facts = (await loanFactsRows(trx, run.enterprise_id, asOf, { after, bound })).map((row) =>
        loanFactsOf(row, accountsByPortfolio),
      );
      // Issue 30: a restructured loan's class follows R-2017/07 Art. 14 (domain/loans/restructuring.ts).
      const restructurings = await restructuringStates(
        trx,
        facts.map((loan) => loan.id),
        asOf,
      );
      for (const loan of facts) loan.restructuring = restructurings.get(loan.id) ?? null;
      const configuration = await EnterpriseConfiguration.query(trx)
        .findOne({ enterprise_id: run.enterprise_id })
        .throwIfNotFound();
      const plan = planBatch(facts, asOf, configuration.provisioningLadder, configuration.secondRestructuringRule);
      await saveBatch(trx, run, plan);
      await postBatch(trx, { run, after }, plan.postings);
      // A loan downgraded to doubtful keeps no accrued interest (docs/domain.md §8): reversed on the as-of date, as its
      // reclassification is.
      const doubtfulBefore = new Set(facts.filter((loan) => loan.classification === 'doubtful').map((loan) => loan.id));
      const downgraded = plan.loanUpdates
        .filter((update) => update.classification === 'doubtful' && !doubtfulBefore.has(update.loanId))
        .map((update) => update.loanId);
      await reverseStandingAccruals(trx, { enterpriseId: run.enterprise_id, loanIds: downgraded, date: asOf });
      await advanceRun(trx, now, run.id, bound, plan.totals);
      return {
        status: bound === null ? 'completed' : 'running',
        loansProcessed: run.loans_processed + plan.totals.loans,
      };
    },
    { isolationLevel: 'repeatable read' },
  );
}

/** The batch's changed loans, then its new rows, one statement each (arrays unnested: one parameter a column). */
async function saveBatch(trx: Knex.Transaction, run: ProvisioningRunRow, plan: BatchPlan): Promise<void> {
  const { loanUpdates: updates, rows } = plan;
  if (updates.length > 0) {
    // First: a loan another transaction changed since the snapshot fails here, before anything is posted.
    await trx.raw(
      `UPDATE loans SET classification = v.classification, days_past_due = v.days_past_due,
        provision_amount = v.provision_amount, doubtful_since = v.doubtful_since,
         doubtful_account_code = v.doubtful_account_code, provision_account_code = v.provision_account_code
       FROM unnest(:ids::uuid[], :classes::text[], :days::int[], :amounts::numeric[], :since::date[],
         :doubtfulAccounts::text[], :provisionAccounts::text[])
         AS v(id, classification, days_past_due, provision_amount, doubtful_since, doubtful_account_code,
           provision_account_code)
       WHERE loans.id = v.id`,
      {
        ids: updates.map((update) => update.loanId),
        classes: updates.map((update) => update.classification),
        days: updates.map((update) => update.daysPastDue),
        amounts: updates.map((update) => update.provisionAmount),
        since: updates.map((update) => update.doubtfulSince),
        doubtfulAccounts: updates.map((update) => update.doubtfulAccount),
        provisionAccounts: updates.map((update) => update.provisionAccount),
      },
    );
  }
  if (rows.length === 0) return;
  const column = <K extends keyof ProvisionRow>(key: K): ProvisionRow[K][] => rows.map((row) => row[key]);
  // A rerun for the same date replaces the day's row of a loan whose position changed again since.
  await trx.raw(
    `INSERT INTO loan_provisions (enterprise_id, branch_id, loan_id, as_of, run_id, days_past_due, classification, rate,
      base, uncovered, amount, previous_amount, delta)
     SELECT :enterpriseId, v.branch_id, v.loan_id, :asOf, :runId, v.days_past_due, v.classification, v.rate, v.base,
       v.uncovered, v.amount, v.previous_amount, v.delta
     FROM unnest(:branches::uuid[], :loans::uuid[], :days::int[], :classes::text[], :rates::numeric[],
       :bases::numeric[], :uncovered::numeric[], :amounts::numeric[],
                 :previous::numeric[], :deltas::numeric[]) AS v(branch_id, loan_id, days_past_due, classification, rate,
                   base, uncovered, amount, previous_amount, delta)
     ON CONFLICT (loan_id, as_of, enterprise_id) DO UPDATE SET run_id = excluded.run_id,
       days_past_due = excluded.days_past_due, classification = excluded.classification, rate = excluded.rate,
       base = excluded.base, uncovered = excluded.uncovered, amount = excluded.amount,
         delta = excluded.amount - loan_provisions.previous_amount`,
    {
      enterpriseId: run.enterprise_id,
      asOf: run.as_of,
      runId: run.id,
      branches: column('branchId'),
      loans: column('loanId'),
      days: column('daysPastDue'),
      classes: column('classification'),
      rates: column('rate'),
      bases: column('base'),
      uncovered: column('uncovered'),
      amounts: column('amount'),
      previous: column('previousAmount'),
      deltas: column('delta'),
    },
  );
}

/**
 * The batch's entries, one per (branch, kind, account pair), each the sum of its loans, dated the run's as-of
 * date: the positions of December 31 belong to December 31, whenever the run is made (docs/domain.md §4). The
 * idempotency key names the run, the batch (the cursor it starts after) and the entry, so no entry is ever
 * recorded twice.
 */
async function postBatch(
  trx: Knex.Transaction,
  batch: { run: ProvisioningRunRow; after: string },
  postings: readonly BatchPosting[],
): Promise<void> {
  const { run, after } = batch;
  for (const posting of postings) {
    const accounts = Object.values(posting.productAccounts).join(' to ');
    const entry = createHash('sha256')
      .update(`${after} ${posting.branchId} ${posting.kind} ${accounts}`)
      .digest('hex')
      .slice(0, 32);
    await recordDatedEvent(trx, {
      date: run.as_of,
      enterpriseId: run.enterprise_id,
      branchId: posting.branchId,
      kind: posting.kind,
      amount: posting.amount,
      payload: { run: run.id, as_of: run.as_of, loans: posting.loans },
      idempotencyKey: `provisioning:${run.id}:${entry}`,
      actorId: null,
      productAccounts: posting.productAccounts,
      description:
        `${posting.kind.replace('_', ' ')} of ${posting.loans} ` +
        `loan(s)${accounts === '' ? '' : ` (${accounts})`} as of ${run.as_of}`,
    });
  }
}

/**
 * The run moves past the batch's last borrower, with the batch's counts and amounts added; the last batch completes it.
 */
async function advanceRun(
  trx: Knex.Transaction,
  now: Date,
  runId: string,
  bound: string | null,
  totals: BatchPlan['totals'],
): Promise<void> {
  await trx('provisioning_runs')
    .where({ id: runId })
    .update({
      cursor: bound,
      ...(bound === null ? { status: 'completed', finished_at: now } : {}),
      loans_processed: trx.raw('loans_processed + ?', [totals.loans]),
      provisions_changed: trx.raw('provisions_changed + ?', [totals.changed]),
      loans_reclassified: trx.raw('loans_reclassified + ?', [totals.reclassified]),
      amount_charged: trx.raw('amount_charged + ?::numeric', [formatAmount(totals.charged)]),
      amount_reversed: trx.raw('amount_reversed + ?::numeric', [formatAmount(totals.reversed)]),
    });
  if (bound === null) reportOnCommit(trx, { work: 'provisioning_run', labels: { outcome: 'completed' } });
}

/** Each loan's latest LoanProvision row on or before `asOf` (rows are written only when a position changes). */
const latestRowOnOrBefore = (knex: Knex, asOf: string) =>
  knex.raw(
    'LATERAL (SELECT * FROM loan_provisions lp WHERE lp.loan_id = l.id AND lp.as_of <= ? ' +
      'ORDER BY lp.as_of DESC LIMIT 1) p',
    [asOf],
  );

/**
 * The loans in the portfolio at `asOf` (the caller narrows them on `l`): disbursed by then and not written off; a loan
 * closed by then has left too once the run has reversed its provisions (until then they are on its provision account).
 */
function portfolioAt(knex: Knex, asOf: string, positions: 'rows' | 'all'): Knex.QueryBuilder {
  const loans = knex
    .from('loans as l')
    .where('l.disbursed_on', '<=', asOf)
    .whereRaw('NOT COALESCE(l.written_off_on <= ?, false)', [asOf]);
  if (positions === 'rows') loans.joinRaw('CROSS JOIN ?', [latestRowOnOrBefore(knex, asOf)]);
  else loans.joinRaw('LEFT JOIN ? ON true', [latestRowOnOrBefore(knex, asOf)]);
  return loans.whereRaw('NOT (COALESCE(l.closed_on <= ?, false) AND COALESCE(p.amount, 0) = 0)', [asOf]);
}

/** The LoanProvision rows that are the loans' positions at `asOf`: each loan's latest on or before it. */
export const provisionRowsAt = (knex: Knex, asOf: string): Knex.QueryBuilder =>
  portfolioAt(knex, asOf, 'rows').select('p.*');

/**
 * Every loan of the portfolio at `asOf` with its class, outstanding principal, uncovered part and provision
 * then. A loan whose position rows follow (not performing, or provisioned: domain/loans/provisioning-run.ts,
 * followed) has them in its latest row; any other is performing and unprovisioned, its outstanding principal
 * the one after its last repayment by then (the whole of it counted as uncovered: nothing is provisioned on it).
 */
export function provisionPositionsAt(knex: Knex, asOf: string): Knex.QueryBuilder {
  const followed = `p.classification IS NOT NULL AND (p.classification <> 'performing' OR p.amount > 0)`;
  const outstanding = `COALESCE((SELECT r.outstanding_after FROM loan_repayments r WHERE r.loan_id = l.id
    AND r.business_date <= ? ORDER BY r.created_at DESC LIMIT 1), l.principal)`;
  return portfolioAt(knex, asOf, 'all').select(
    knex.raw(`COALESCE(p.classification, 'performing') AS classification`),
    knex.raw(`CASE WHEN ${followed} THEN p.base ELSE ${outstanding} END AS outstanding`, [asOf]),
    knex.raw(`CASE WHEN ${followed} THEN p.uncovered ELSE ${outstanding} END AS uncovered`, [asOf]),
    knex.raw('COALESCE(p.amount, 0) AS amount'),
  );
}
