import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import { totalOf } from '../../domain/loans/allocation';
import { accruePenalties } from '../../domain/loans/position';
import { formatAmount, Money } from '../../domain/money';
import { refundOffsets, type LoanDebt } from '../../domain/shares/withdrawal';
import { Loan } from '../../db/models/loan.model';
import { ShareWithdrawal } from '../../db/models/share-withdrawal.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { businessDateOf } from '../enterprise/configuration.activity';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
import { readInstallments } from '../loans/installments';
import { applyRepayment, duesFor } from '../loans/loan-repayments.activity';
import { moveAccountBalance } from '../members/member-account-leg';
import { fundingAccount, fundingOf, type ShareFunding } from './share-payments';
import { lockMember } from './share-subscriptions.activity';

export interface RefundInput {
  withdrawalId: string;
  userId: string;
  channel: 'cash' | 'account';
  accountId: string | null;
  reference: string;
  /** The client's Idempotency-Key made unique per user (or a fresh key): a retried refund finds its own. */
  idempotencyKey: string;
  /** The request's fields, kept to tell a retry from another request with the same key. */
  request: Record<string, unknown>;
  requestId: string | null;
  address?: string;
}

export interface RefundResult {
  outcome: 'recorded';
  offsetAmount: string;
  netRefund: string;
}

/** The member's loans that owe something, locked in a fixed order, oldest first, with what each owes now. */
async function debtsOf(
  trx: Knex.Transaction,
  clientId: string,
  businessDate: string,
): Promise<{ loans: Map<string, Loan>; debts: LoanDebt[] }> {
  const loans = await Loan.query(trx).where({ client_id: clientId, status: 'active' }).orderBy('id').forUpdate();
  loans.sort((a, b) =>
    a.approvedOn === b.approvedOn ? a.number.localeCompare(b.number) : a.approvedOn < b.approvedOn ? -1 : 1,
  );
  const debts: LoanDebt[] = [];
  for (const loan of loans) {
    const installments = accruePenalties(
      await readInstallments(trx, loan.id),
      businessDate,
      new Money(loan.penaltyRate),
    );
    const overdue = totalOf(duesFor(installments, businessDate, 'overdue'));
    debts.push({
      loanId: loan.id,
      overdue,
      outstandingPrincipal: totalOf(duesFor(installments, businessDate, 'overdue_and_principal')).minus(overdue),
    });
  }
  return { loans: new Map(loans.map((loan) => [loan.id, loan])), debts };
}

/**
 * A retried refund's result (the same Idempotency-Key), or null when the refund is owed and still to be made;
 * a withdrawal refunded by another request, or owing no refund, is refused.
 */
function earlierRefund(withdrawal: ShareWithdrawal, input: RefundInput): RefundResult | null {
  if (withdrawal.status === 'refunded') {
    if (withdrawal.refundIdempotencyKey === input.idempotencyKey)
      return {
        outcome: 'recorded' as const,
        offsetAmount: withdrawal.offsetAmount!,
        netRefund: withdrawal.netRefund!,
      };
    throw new AppError(
      'conflict',
      'already_refunded',
      `Withdrawal ${withdrawal.number} was refunded on ${withdrawal.refundedOn}.`,
    );
  }
  if (withdrawal.status !== 'effective')
    throw new AppError(
      'conflict',
      'refund_not_owed',
      `Withdrawal ${withdrawal.number} is ${withdrawal.status}: no refund is owed.`,
    );
  return null;
}

/** Audits the refund: what was owed, offset against each loan, and paid out. */
async function auditRefund(
  trx: Knex.Transaction,
  input: RefundInput,
  withdrawal: ShareWithdrawal,
  offsets: ReturnType<typeof refundOffsets>,
): Promise<void> {
  await recordAudit(trx, input, {
    action: 'share_withdrawal.refund',
    entityType: 'share_withdrawal',
    entityId: withdrawal.id,
    enterpriseId: withdrawal.enterpriseId,
    details: {
      number: withdrawal.number,
      owed: withdrawal.cancelledPaid,
      offset: formatAmount(offsets.offset),
      net: formatAmount(offsets.net),
      channel: input.channel,
      loans: Object.fromEntries([...offsets.byLoan].map(([id, amount]) => [id, formatAmount(amount)])),
    },
  });
}

/**
 * Refunds the paid value of withdrawn shares, net of what the member owes (AUSCOOP Art. 11): their overdue
 * installments first, then, when they leave, their loans' outstanding principal; each part is a loan repayment
 * funded from the refund owed (4417). What is left is paid at the till or onto the member's account.
 */
export async function refundShareWithdrawal(knex: Knex, now: Date, input: RefundInput): Promise<RefundResult> {
  return inTransaction(knex, async (trx) => {
    const found = await ShareWithdrawal.query(trx).findById(input.withdrawalId).throwIfNotFound();
    await lockMember(trx, found.clientId);
    const withdrawal = await ShareWithdrawal.query(trx).findById(found.id).forUpdate().throwIfNotFound();
    const earlier = earlierRefund(withdrawal, input);
    if (earlier !== null) return earlier;
    const businessDate = await businessDateOf(trx, withdrawal.enterpriseId, now);
    const { loans, debts } = await debtsOf(trx, withdrawal.clientId, businessDate);
    const funding = await fundingOf(trx, input.channel, input.accountId, withdrawal.clientId);
    const owedAccount = await owedAccountOf(trx, withdrawal);
    const offsets = refundOffsets(new Money(withdrawal.cancelledPaid!), debts, withdrawal.leaving);
    for (const [loanId, amount] of offsets.byLoan) {
      await applyRepayment(trx, now, {
        loan: loans.get(loanId)!,
        businessDate,
        amount,
        funding: { channel: 'share_refund', account: owedAccount },
        dues: withdrawal.leaving ? 'overdue_and_principal' : 'overdue',
        reference: `refund of ${withdrawal.number}`,
        key: `${withdrawal.workflowId}:loan:${loanId}`,
        request: { withdrawal: withdrawal.id, loan: loanId, amount: formatAmount(amount) },
        actorId: input.userId,
      });
    }
    if (offsets.net.gt(0)) await payOut(trx, now, withdrawal, { funding, owedAccount }, offsets.net, input.userId);
    await ShareWithdrawal.query(trx)
      .patch({
        status: 'refunded',
        refundedOn: businessDate,
        refundChannel: input.channel,
        refundAccountId: input.accountId,
        offsetAmount: formatAmount(offsets.offset),
        netRefund: formatAmount(offsets.net),
        refundedBy: input.userId,
        refundIdempotencyKey: input.idempotencyKey,
        refundRequest: input.request,
      })
      .where('id', withdrawal.id);
    await auditRefund(trx, input, withdrawal, offsets);
    return {
      outcome: 'recorded' as const,
      offsetAmount: formatAmount(offsets.offset),
      netRefund: formatAmount(offsets.net),
    };
  });
}

/**
 * The account the withdrawal's cancellation credited, which its refund empties: 4417 capital à rembourser, or 4411
 * for a withdrawal cancelled before the two were kept apart (docs/domain.md §5).
 */
async function owedAccountOf(trx: Knex.Transaction, withdrawal: ShareWithdrawal): Promise<string> {
  const credited = await trx('business_event_logs as ev')
    .join('journal_entries as e', 'e.event_id', 'ev.id')
    .join('journal_lines as l', 'l.entry_id', 'e.id')
    .join('company_chart_entries as c', 'c.id', 'l.chart_entry_id')
    .where({
      'ev.enterprise_id': withdrawal.enterpriseId,
      'ev.idempotency_key': `${withdrawal.workflowId}:share_cancellation`,
    })
    .where('l.credit', '>', 0)
    .first('c.code');
  return (credited?.code as string | undefined) ?? defaultRoleAccounts.capital_to_refund!;
}

interface RefundSource {
  funding: ShareFunding;
  /** Where the capital owed sits: 4417, or 4411 for an older withdrawal. */
  owedAccount: string;
}

/** The net refund leaves the capital owed to the member (4417) for the till or the member's account. */
async function payOut(
  trx: Knex.Transaction,
  now: Date,
  withdrawal: ShareWithdrawal,
  source: RefundSource,
  amount: Money,
  actorId: string,
): Promise<void> {
  const { funding, owedAccount } = source;
  if (funding.channel === 'account') await moveAccountBalance(trx, funding.leg, amount);
  await recordBusinessEvent(trx, now, {
    enterpriseId: withdrawal.enterpriseId,
    branchId: withdrawal.branchId,
    kind: 'share_refund',
    amount,
    subjectId: funding.channel === 'account' ? funding.leg.account.id : withdrawal.subscriptionId,
    payload: { withdrawal: withdrawal.id, withdrawal_number: withdrawal.number, channel: funding.channel },
    idempotencyKey: `${withdrawal.workflowId}:share_refund`,
    actorId,
    productAccounts: { cash: fundingAccount(funding), capital_to_refund: owedAccount },
    description: `share refund ${withdrawal.number}`,
  });
}
