import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import {
  engagementChanges,
  engagementLines,
  financingCommitment,
  guaranteeReceived,
  suspendedInterest,
  type EngagementChange,
  type OffBalancePair,
} from '../../domain/accounts/off-balance';
import { unpaidEarnedInterest } from '../../domain/loans/interest-accrual';
import type { GuaranteeKind } from '../../domain/loans/provisioning';
import { formatAmount, Money } from '../../domain/money';
import { ledgerRows } from '../events/ledger-refusal';
import { ledgerLines, postJournalEntry } from '../events/post-entry';

/**
 * A loan's off-balance engagements (docs/domain.md §12.2), posted in the transaction of the operation that changes
 * them: the financing commitment while the loan awaits its disbursement, the guarantees in force that secure it. The
 * books are brought to the loan's position by the difference with what off_balance_movements says they hold, so a call
 * that finds nothing changed posts nothing (idempotent), and the month end, which calls it for every loan, catches what
 * moves without an operation (a guarantee's end date passing, a loan repaid). One HB entry per loan that changed, in
 * its branch.
 */

interface HeldRow {
  kind: OffBalancePair['kind'];
  account: string;
  counterpart: string;
  amount: string;
}

function pairOf(row: HeldRow): OffBalancePair {
  if (row.kind === 'commitment_given') return financingCommitment;
  if (row.kind === 'suspended_interest') return suspendedInterest;
  const pair = Object.values(guaranteeReceived).find(
    (guarantee) => guarantee.account === row.account && guarantee.counterpart === row.counterpart,
  );
  if (pair === undefined)
    throw new Error(`off_balance_movements holds ${row.account}/${row.counterpart}, no guarantee's accounts`);
  return pair;
}

type Engagement = { pair: OffBalancePair; amount: Money };

/** What the books hold for each of the loans, per pair (a loan holding nothing is absent). */
async function heldEngagements(trx: Knex.Transaction, loanIds: readonly string[]): Promise<Map<string, Engagement[]>> {
  const rows: (HeldRow & { loan_id: string })[] = await trx('off_balance_movements')
    .whereIn('loan_id', loanIds)
    .groupBy('loan_id', 'kind', 'account', 'counterpart')
    .select('loan_id', 'kind', 'account', 'counterpart', trx.raw('sum(amount)::text AS amount'));
  return groupByLoan(rows, (row) => ({ pair: pairOf(row), amount: new Money(row.amount) }));
}

/** The guarantees in force at `date` that secure each of the loans, summed per kind. */
async function guaranteesInForce(
  trx: Knex.Transaction,
  loanIds: readonly string[],
  date: IsoDate,
): Promise<Map<string, Engagement[]>> {
  const rows: { loan_id: string; kind: GuaranteeKind; value: string }[] = await trx('loan_guarantees')
    .whereIn('loan_id', loanIds)
    .where({ status: 'in_force' })
    .where('start_date', '<=', date)
    .where((q) => q.whereNull('end_date').orWhere('end_date', '>', date))
    .groupBy('loan_id', 'kind')
    .select('loan_id', 'kind', trx.raw('sum(value)::text AS value'));
  return groupByLoan(rows, (row) => ({ pair: guaranteeReceived[row.kind], amount: new Money(row.value) }));
}

function groupByLoan<Row extends { loan_id: string }>(
  rows: readonly Row[],
  engagementOf: (row: Row) => Engagement,
): Map<string, Engagement[]> {
  const byLoan = new Map<string, Engagement[]>();
  for (const row of rows) byLoan.set(row.loan_id, [...(byLoan.get(row.loan_id) ?? []), engagementOf(row)]);
  return byLoan;
}

interface LoanRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  number: string;
  status: string;
  principal: string;
}

/**
 * The engagements the loan should carry; its suspended interest is the month end's figure, else left as held (none once
 * the loan is over).
 */
function targetEngagements(
  loan: LoanRow,
  held: readonly Engagement[],
  guarantees: readonly Engagement[],
  interest: Money | undefined,
): Engagement[] {
  const running = loan.status === 'awaiting_disbursement' || loan.status === 'active';
  const suspended =
    interest === undefined
      ? held.filter((row) => row.pair.kind === 'suspended_interest')
      : [{ pair: suspendedInterest, amount: interest }];
  return [
    ...(loan.status === 'awaiting_disbursement'
      ? [{ pair: financingCommitment, amount: new Money(loan.principal) }]
      : []),
    ...(running ? guarantees : []),
    ...(running ? suspended : []),
  ];
}

export interface EngagementPosting {
  loanId: string;
  date: IsoDate;
  createdBy: string | null;
  /** The month end's figure of the interest suspended on the loan (absent: left as it is, unless the loan is over). */
  suspendedInterest?: Money;
}

/**
 * Brings the loan's class 9 postings to its position at `date` (the loan row locked); the entry's id, or null when
 * nothing changed.
 */
export async function postLoanEngagements(trx: Knex.Transaction, posting: EngagementPosting): Promise<string | null> {
  const loan: LoanRow | undefined = await trx('loans')
    .where({ id: posting.loanId })
    .forUpdate()
    .first('id', 'enterprise_id', 'branch_id', 'number', 'status', 'principal');
  if (loan === undefined) return null;
  const held = (await heldEngagements(trx, [loan.id])).get(loan.id) ?? [];
  const guarantees = (await guaranteesInForce(trx, [loan.id], posting.date)).get(loan.id) ?? [];
  const changes = engagementChanges(targetEngagements(loan, held, guarantees, posting.suspendedInterest), held);
  if (changes.length === 0) return null;
  const entryId = await postJournalEntry(trx, {
    enterpriseId: loan.enterprise_id,
    branchId: loan.branch_id,
    entryDate: posting.date,
    lines: changes.flatMap((change) => engagementLines(change.pair, change.change)),
    journal: 'HB',
    description: engagementDescription(loan),
    createdBy: posting.createdBy,
  });
  await insertMovements(trx, [{ loan, changes, entryId }], posting.date);
  return entryId;
}

const engagementDescription = (loan: LoanRow) => `Engagements hors bilan du prêt ${loan.number}`;

interface LoanChanges {
  loan: LoanRow;
  changes: EngagementChange[];
}

/**
 * The movements of the entries posted, in statements of a bounded number of rows (a month end's thousands of loans).
 */
async function insertMovements(
  trx: Knex.Transaction,
  posted: readonly (LoanChanges & { entryId: string })[],
  date: IsoDate,
): Promise<void> {
  const rows = posted.flatMap(({ loan, changes, entryId }) =>
    changes.map((change) => ({
      enterprise_id: loan.enterprise_id,
      branch_id: loan.branch_id,
      loan_id: loan.id,
      kind: change.pair.kind,
      account: change.pair.account,
      counterpart: change.pair.counterpart,
      amount: formatAmount(change.change),
      entry_id: entryId,
      entry_date: date,
    })),
  );
  for (let start = 0; start < rows.length; start += 2000)
    await trx('off_balance_movements').insert(rows.slice(start, start + 2000));
}

interface MonthEndLoanRow extends LoanRow {
  disbursed_on: string | null;
  doubtful: boolean;
  installments: { due_date: string; interest_due: string; interest_paid: string }[] | null;
}

/**
 * At a month end, every loan running or holding an engagement brought to its position at the period's last day: the
 * guarantees ended meanwhile and the loans repaid are released, and a doubtful loan (the provisioning run's class of
 * that day) carries its unpaid earned interest in 9841, released when paid, back to performing, closed or written off.
 * Set-based, as postLoanEngagements would do loan by loan: the loans locked and read in one statement, what they hold
 * and their guarantees in two, one HB entry per loan that changed, all posted in one statement. Answers the entries
 * posted.
 */
export async function postEngagementsAtMonthEnd(
  trx: Knex.Transaction,
  run: { enterprise_id: string; period_end: IsoDate },
): Promise<number> {
  const loans = await monthEndLoans(trx, run);
  const ids = loans.map((loan) => loan.id);
  const [held, guarantees] = [await heldEngagements(trx, ids), await guaranteesInForce(trx, ids, run.period_end)];
  const changed = loans
    .map((loan) => {
      const interest =
        loan.doubtful && loan.disbursed_on !== null
          ? unpaidEarnedInterest(
              { disbursedOn: loan.disbursed_on, installments: (loan.installments ?? []).map(installmentOf) },
              run.period_end,
            )
          : new Money(0);
      const loanHeld = held.get(loan.id) ?? [];
      return {
        loan,
        changes: engagementChanges(
          targetEngagements(loan, loanHeld, guarantees.get(loan.id) ?? [], interest),
          loanHeld,
        ),
      };
    })
    .filter((loan) => loan.changes.length > 0);
  const entryIds = await postEngagementEntries(trx, changed, run.period_end);
  await insertMovements(
    trx,
    changed.map((loan, index) => ({ ...loan, entryId: entryIds[index]! })),
    run.period_end,
  );
  return changed.length;
}

/** The loans a month end brings to their position, locked in the order of their ids. */
async function monthEndLoans(
  trx: Knex.Transaction,
  run: { enterprise_id: string; period_end: IsoDate },
): Promise<MonthEndLoanRow[]> {
  const { rows } = await trx.raw<{ rows: MonthEndLoanRow[] }>(
    `SELECT l.id, l.enterprise_id, l.branch_id, l.number, l.status, l.principal::text AS principal,
      to_char(l.disbursed_on, 'YYYY-MM-DD') AS disbursed_on,
            COALESCE((SELECT lp.classification FROM loan_provisions lp WHERE lp.loan_id = l.id
              AND lp.as_of <= :periodEnd ORDER BY lp.as_of DESC LIMIT 1), 'performing') = 'doubtful' AS doubtful,
            (SELECT json_agg(json_build_object('due_date', to_char(i.due_date, 'YYYY-MM-DD'), 'interest_due',
              i.interest_due::text, 'interest_paid', i.interest_paid::text) ORDER BY i.number)
               FROM loan_installments i WHERE i.loan_id = l.id) AS installments
       FROM loans l
      WHERE l.enterprise_id = :enterpriseId
        AND (l.status IN ('awaiting_disbursement', 'active')
             OR EXISTS (SELECT 1 FROM off_balance_movements m WHERE m.loan_id = l.id GROUP BY m.account
               HAVING sum(m.amount) <> 0))
        -- A loan moved by an operation after the period (a month end run late) is left to the next month end.
        AND NOT EXISTS (SELECT 1 FROM off_balance_movements m WHERE m.loan_id = l.id AND m.entry_date > :periodEnd)
      ORDER BY l.id
        FOR UPDATE OF l`,
    { enterpriseId: run.enterprise_id, periodEnd: run.period_end },
  );
  return rows;
}

/**
 * One HB entry per loan, each through coopbank_post_entry, all in one statement in the loans' order: their ids in that
 * order.
 */
async function postEngagementEntries(
  trx: Knex.Transaction,
  changed: readonly LoanChanges[],
  date: IsoDate,
): Promise<string[]> {
  if (changed.length === 0) return [];
  const drafts = changed.map(({ loan, changes }) => {
    const lines = changes.flatMap((change) => engagementLines(change.pair, change.change));
    return {
      enterprise: loan.enterprise_id,
      branch: loan.branch_id,
      description: engagementDescription(loan),
      lines: ledgerLines(lines),
    };
  });
  // The function scan yields the drafts in their order; each call numbers its entry in the HB journal of the year.
  const posted = await ledgerRows<{ ord: string; id: string }>(
    trx.raw(
      `
    SELECT d.ord, coopbank_post_entry((d.value->>'enterprise')::uuid, (d.value->>'branch')::uuid, ?::date,
      d.value->'lines', d.value->>'description',
                                      NULL, NULL, NULL, NULL, 'HB') AS id
      FROM jsonb_array_elements(?::jsonb) WITH ORDINALITY AS d(value, ord)`,
      [date, JSON.stringify(drafts)],
    ),
  );
  const ids = new Map(posted.map((row) => [Number(row.ord), row.id]));
  return drafts.map((_, index) => ids.get(index + 1)!);
}

const installmentOf = (row: NonNullable<MonthEndLoanRow['installments']>[number]) => ({
  dueDate: row.due_date,
  interestDue: new Money(row.interest_due),
  interestPaid: new Money(row.interest_paid),
});
