import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { engagementChanges, engagementLines, financingCommitment, guaranteeReceived, suspendedInterest, type OffBalancePair } from '../../domain/accounts/off-balance';
import { unpaidEarnedInterest } from '../../domain/loans/interest-accrual';
import type { GuaranteeKind } from '../../domain/loans/provisioning';
import { formatAmount, Money } from '../../domain/money';
import { postJournalEntry } from '../events/post-entry';

/**
 * A loan's off-balance engagements (docs/domain.md §12.2), posted in the transaction of the operation that changes
 * them: the financing commitment while the loan awaits its disbursement, the guarantees in force that secure it. The
 * books are brought to the loan's position by the difference with what off_balance_movements says they hold, so a
 * call that finds nothing changed posts nothing (idempotent), and the month end, which calls it for every loan, catches
 * what moves without an operation (a guarantee's end date passing, a loan repaid). One HB entry per call, in the loan's branch.
 */

interface HeldRow { kind: OffBalancePair['kind']; account: string; counterpart: string; amount: string }

function pairOf(row: HeldRow): OffBalancePair {
  if (row.kind === 'commitment_given') return financingCommitment;
  if (row.kind === 'suspended_interest') return suspendedInterest;
  const pair = Object.values(guaranteeReceived).find((guarantee) => guarantee.account === row.account && guarantee.counterpart === row.counterpart);
  if (pair === undefined) throw new Error(`off_balance_movements holds ${row.account}/${row.counterpart}, no guarantee's accounts`);
  return pair;
}

/** What the books hold for the loan, per pair. */
async function heldEngagements(trx: Knex.Transaction, loanId: string): Promise<{ pair: OffBalancePair; amount: Money }[]> {
  const rows: HeldRow[] = await trx('off_balance_movements').where({ loan_id: loanId }).groupBy('kind', 'account', 'counterpart')
    .select('kind', 'account', 'counterpart', trx.raw('sum(amount)::text AS amount'));
  return rows.map((row) => ({ pair: pairOf(row), amount: new Money(row.amount) }));
}

interface LoanRow { id: string; enterprise_id: string; branch_id: string; number: string; status: string; principal: string }

/** The engagements the loan should carry at `date`; its suspended interest is the month end's figure, else left as held (none once the loan is over). */
async function targetEngagements(trx: Knex.Transaction, loan: LoanRow, date: IsoDate, held: readonly { pair: OffBalancePair; amount: Money }[], interest: Money | undefined) {
  const running = loan.status === 'awaiting_disbursement' || loan.status === 'active';
  const suspended = interest === undefined ? held.filter((row) => row.pair.kind === 'suspended_interest') : [{ pair: suspendedInterest, amount: interest }];
  const guarantees: { kind: GuaranteeKind; value: string }[] = running
    ? await trx('loan_guarantees').where({ loan_id: loan.id, status: 'in_force' }).where('start_date', '<=', date)
        .where((q) => q.whereNull('end_date').orWhere('end_date', '>', date)).groupBy('kind').select('kind', trx.raw('sum(value)::text AS value'))
    : [];
  return [
    ...(loan.status === 'awaiting_disbursement' ? [{ pair: financingCommitment, amount: new Money(loan.principal) }] : []),
    ...guarantees.map((row) => ({ pair: guaranteeReceived[row.kind], amount: new Money(row.value) })),
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

/** Brings the loan's class 9 postings to its position at `date` (the loan row locked); the entry's id, or null when nothing changed. */
export async function postLoanEngagements(trx: Knex.Transaction, posting: EngagementPosting): Promise<string | null> {
  const loan: LoanRow | undefined = await trx('loans').where({ id: posting.loanId }).forUpdate().first('id', 'enterprise_id', 'branch_id', 'number', 'status', 'principal');
  if (loan === undefined) return null;
  const held = await heldEngagements(trx, loan.id);
  const targets = await targetEngagements(trx, loan, posting.date, held, posting.suspendedInterest);
  const changes = engagementChanges(targets, held);
  if (changes.length === 0) return null;
  const entryId = await postJournalEntry(trx, {
    enterpriseId: loan.enterprise_id,
    branchId: loan.branch_id,
    entryDate: posting.date,
    lines: changes.flatMap((change) => engagementLines(change.pair, change.change)),
    journal: 'HB',
    description: `Engagements hors bilan du prêt ${loan.number}`,
    createdBy: posting.createdBy,
  });
  await trx('off_balance_movements').insert(changes.map((change) => ({
    enterprise_id: loan.enterprise_id, branch_id: loan.branch_id, loan_id: loan.id, kind: change.pair.kind, account: change.pair.account,
    counterpart: change.pair.counterpart, amount: formatAmount(change.change), entry_id: entryId, entry_date: posting.date,
  })));
  return entryId;
}

interface MonthEndLoanRow {
  id: string;
  disbursed_on: string | null;
  doubtful: boolean;
  installments: { due_date: string; interest_due: string; interest_paid: string }[] | null;
}

/**
 * At a month end, every loan running or holding an engagement brought to its position at the period's last day: the
 * guarantees ended meanwhile and the loans repaid are released, and a doubtful loan (the provisioning run's class of
 * that day) carries its unpaid earned interest in 9841, released when paid, back to performing, closed or written off.
 * Answers the entries posted.
 */
export async function postEngagementsAtMonthEnd(trx: Knex.Transaction, run: { enterprise_id: string; period_end: IsoDate }): Promise<number> {
  const { rows } = await trx.raw<{ rows: MonthEndLoanRow[] }>(
    `SELECT l.id, to_char(l.disbursed_on, 'YYYY-MM-DD') AS disbursed_on,
            COALESCE((SELECT lp.classification FROM loan_provisions lp WHERE lp.loan_id = l.id AND lp.as_of <= :periodEnd ORDER BY lp.as_of DESC LIMIT 1), 'performing') = 'doubtful' AS doubtful,
            (SELECT json_agg(json_build_object('due_date', to_char(i.due_date, 'YYYY-MM-DD'), 'interest_due', i.interest_due::text, 'interest_paid', i.interest_paid::text) ORDER BY i.number)
               FROM loan_installments i WHERE i.loan_id = l.id) AS installments
       FROM loans l
      WHERE l.enterprise_id = :enterpriseId
        AND (l.status IN ('awaiting_disbursement', 'active')
             OR EXISTS (SELECT 1 FROM off_balance_movements m WHERE m.loan_id = l.id GROUP BY m.account HAVING sum(m.amount) <> 0))
        -- A loan moved by an operation after the period (a month end run late) is left to the next month end.
        AND NOT EXISTS (SELECT 1 FROM off_balance_movements m WHERE m.loan_id = l.id AND m.entry_date > :periodEnd)
      ORDER BY l.id`,
    { enterpriseId: run.enterprise_id, periodEnd: run.period_end },
  );
  let entries = 0;
  for (const loan of rows) {
    const interest = loan.doubtful && loan.disbursed_on !== null
      ? unpaidEarnedInterest({ disbursedOn: loan.disbursed_on, installments: (loan.installments ?? []).map(installmentOf) }, run.period_end)
      : new Money(0);
    if ((await postLoanEngagements(trx, { loanId: loan.id, date: run.period_end, createdBy: null, suspendedInterest: interest })) !== null) entries += 1;
  }
  return entries;
}

const installmentOf = (row: NonNullable<MonthEndLoanRow['installments']>[number]) => ({ dueDate: row.due_date, interestDue: new Money(row.interest_due), interestPaid: new Money(row.interest_paid) });
