import { randomUUID } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, Money } from '../../domain/money';
import { Loan } from '../../db/models/loan.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';
import { defaultRoleAccounts } from '../events/default-rules';
import { recordBusinessEvent } from '../events/record-business-event';
import { assertSameRequest } from '../idempotency';
import { memberAccountLeg, moveAccountBalance } from '../members/member-account-leg';
import { loanOperationsQuery } from './loan-operations';
import { paymentRequest, type LoanPaymentInput } from './loan-repayments.activity';

export type RecoveryInput = LoanPaymentInput;

/** A recovery as it is shown: its row with the loan's number. */
export interface LoanRecoveryRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  loan_id: string;
  loan_number: string;
  amount: string;
  channel: 'cash' | 'account';
  account_id: string | null;
  reference: string;
  business_date: string;
  event_id: string;
  recorded_by: string;
  request: Record<string, unknown>;
  created_at: Date;
}

/** The recoveries with their loan's number: the list, the detail and a retry read them the same way. */
export const recoveriesQuery = (knex: Knex) =>
  loanOperationsQuery(knex, 'loan_recoveries').select(
    'r.amount',
    'r.channel',
    'r.account_id',
    'r.reference',
    knex.raw(`to_char(r.business_date, 'YYYY-MM-DD') AS business_date`),
    'r.event_id',
    'r.recorded_by',
    'r.request',
    'r.created_at',
  );

/** What was recovered on a loan since its write-off. */
export async function recoveredOn(knex: Knex, loanId: string): Promise<Money> {
  const row = await knex('loan_recoveries')
    .where({ loan_id: loanId })
    .first(knex.raw('COALESCE(sum(amount), 0)::text AS total'));
  return new Money(row.total as string);
}

/** The recovery the same user recorded earlier under the same Idempotency-Key, if any. */
const earlierRecovery = async (trx: Knex.Transaction, enterpriseId: string, actor: Actor, idempotencyKey: string) =>
  (await recoveriesQuery(trx)
    .where({ 'r.enterprise_id': enterpriseId, 'r.recorded_by': actor.userId, 'r.idempotency_key': idempotencyKey })
    .first()) as LoanRecoveryRow | undefined;

/**
 * Records money recovered on a written-off loan (docs/domain.md §14.3): income on 792 Récupération sur créances
 * abandonnées, from the till or the member's account (`loan_recovery`), and a row of the loan's recovery history.
 * The loan stays written off: nothing goes back to its receivable, its provisions or class 9. Money coming in, like a
 * repayment, it runs at once (no four eyes). A retry with the same Idempotency-Key answers the first recovery.
 */
export async function recordRecovery(
  context: DataContext,
  actor: Actor,
  input: RecoveryInput,
): Promise<{ recovery: LoanRecoveryRow; replayed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate();
    if (loan === undefined) throw new NotFoundError('The loan');
    const request = paymentRequest(loan.id, input);
    if (input.idempotencyKey !== null) {
      const earlier = await earlierRecovery(trx, loan.enterpriseId, actor, input.idempotencyKey);
      if (earlier !== undefined) {
        assertSameRequest(earlier.request, request);
        return { recovery: earlier, replayed: true };
      }
    }
    if (loan.status !== 'written_off')
      throw new AppError(
        'conflict',
        'loan_not_written_off',
        `Loan ${loan.number} is ${loan.status}: only a written-off loan takes a recovery (a repayment otherwise).`,
      );
    const leg = input.channel === 'account' ? await memberAccountLeg(trx, input.accountId!, loan.clientId) : null;
    const id = randomUUID();
    const recorded = await recordBusinessEvent(trx, context.clock(), {
      enterpriseId: loan.enterpriseId,
      branchId: loan.branchId,
      kind: 'loan_recovery',
      amount: input.amount,
      actorId: actor.userId,
      // As for a repayment: the member's account when it pays, so its statement shows the debit.
      subjectId: leg?.account.id ?? loan.id,
      payload: { loan: loan.id, loan_number: loan.number, recovery: id, channel: input.channel },
      idempotencyKey: `loan_recovery:${id}`,
      productAccounts: { cash: leg?.depositAccountCode ?? defaultRoleAccounts.cash },
      description: `recovery on written-off loan ${loan.number}`,
    });
    if (leg !== null) await moveAccountBalance(trx, leg, input.amount.negated());
    await trx('loan_recoveries').insert({
      id,
      enterprise_id: loan.enterpriseId,
      branch_id: loan.branchId,
      loan_id: loan.id,
      amount: formatAmount(input.amount),
      channel: input.channel,
      account_id: input.accountId,
      reference: input.reference,
      business_date: recorded.businessDate,
      event_id: recorded.eventId,
      recorded_by: actor.userId,
      idempotency_key: input.idempotencyKey,
      request: JSON.stringify(request),
    });
    await recordAudit(trx, actor, {
      action: 'loan.recovery',
      entityType: 'loan',
      entityId: loan.id,
      enterpriseId: loan.enterpriseId,
      details: { recovery: id, amount: request.amount, channel: input.channel },
    });
    return { recovery: (await recoveriesQuery(trx).where('r.id', id).first()) as LoanRecoveryRow, replayed: false };
  });
}
