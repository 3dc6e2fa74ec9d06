import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { needsConfirmation } from '../../domain/loans/guarantee-confirmation';
import { coverOf, type GuaranteeKind } from '../../domain/loans/provisioning';
import { availableBalance } from '../../domain/members/overdraft';
import { formatAmount, Money } from '../../domain/money';
import { CompteClient } from '../../db/models/compte-client.model';
import { Loan } from '../../db/models/loan.model';
import { LoanApplication } from '../../db/models/loan-application.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import { heldAmount } from '../members/account-holds';
import type { ActivityContext, Actor, DataContext } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postLoanEngagements } from './off-balance';

export interface GuaranteeInput {
  /** One of the two: an application in review, or a loan not yet closed. */
  applicationId: string | null;
  loanId: string | null;
  kind: GuaranteeKind;
  value: Money;
  startDate: string;
  endDate: string | null;
  description: string;
  /**
   * A pledged deposit: the member's account the value is held on; a personal guarantee: the guarantor's account,
   * optional.
   */
  accountId: string | null;
  /** A personal guarantee only: the guarantor member (null: one recorded by name in the description). */
  guarantorId: string | null;
  /** The day the value was assessed (the start date when not given). */
  valuationDate: string;
  documentReference: string;
}

const invalid = (field: string, message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field, message }]);

/**
 * The account a pledged deposit holds `value` on, locked (debits of the account queue behind the new hold): of the
 * loan's enterprise (the borrower's or a guarantor member's; `ownerId`'s when given), open, with `value` available
 * beyond its product's minimum balance and the holds already on it.
 */
async function pledgedAccount(
  trx: Knex.Transaction,
  accountId: string,
  enterpriseId: string,
  value: Money,
  ownerId: string | null,
): Promise<CompteClient> {
  const account = await CompteClient.query(trx).findById(accountId).forUpdate();
  if (account === undefined || account.enterpriseId !== enterpriseId)
    throw invalid('account', "account must be a member account of the loan's enterprise");
  if (ownerId !== null && account.clientId !== ownerId) throw invalid('account', "account must be the guarantor's");
  if (account.status !== 'open')
    throw new AppError(
      'conflict',
      `account_${account.status}`,
      `The account ${account.number} is ${account.status}: nothing can be pledged on it.`,
      [{ field: 'account', message: `the account is ${account.status}` }],
    );
  const product = await SavingsProduct.query(trx).findById(account.productId).throwIfNotFound();
  const available = availableBalance(
    new Money(account.balance),
    new Money(product.minimumBalance),
    await heldAmount(trx, account.id),
  );
  if (available.lt(value)) {
    const message =
      `The available balance of ${account.number} is ${formatAmount(available)} XAF: ` +
      `${formatAmount(value)} XAF cannot be held on it.`;
    throw new AppError('conflict', 'insufficient_funds', message, [{ field: 'value', message }]);
  }
  return account;
}

/** The loan or application the guarantee secures, locked and still running: its enterprise and its borrower. */
async function securedCredit(
  trx: Knex.Transaction,
  input: Pick<GuaranteeInput, 'loanId' | 'applicationId'>,
): Promise<{ enterpriseId: string; borrowerId: string }> {
  if (input.loanId !== null) {
    const loan = await Loan.query(trx).findById(input.loanId).forUpdate().throwIfNotFound();
    if (loan.status === 'closed' || loan.status === 'written_off')
      throw new AppError('conflict', `loan_${loan.status}`, `Loan ${loan.number} is ${loan.status.replace('_', ' ')}.`);
    return { enterpriseId: loan.enterpriseId, borrowerId: loan.clientId };
  }
  const application = await LoanApplication.query(trx).findById(input.applicationId!).forUpdate().throwIfNotFound();
  if (application.status !== 'in_review')
    throw new AppError('conflict', 'application_closed', `The application is ${application.status}.`);
  return { enterpriseId: application.enterpriseId, borrowerId: application.clientId };
}

/**
 * A personal guarantee's guarantor: a member of the loan's enterprise other than the borrower; the account it holds,
 * the guarantor's own (docs/domain.md §14.4). Only a personal guarantee names a guarantor, and only a pledged deposit
 * or a guarantor's guarantee holds an account.
 */
async function checkGuarantor(
  trx: Knex.Transaction,
  input: GuaranteeInput,
  credit: { enterpriseId: string; borrowerId: string },
): Promise<void> {
  const personal = input.kind === 'personal_guarantor';
  if (input.guarantorId === null) {
    if (personal && input.accountId !== null)
      throw invalid('guarantor', "guarantor is required to hold a guarantor's account");
    return;
  }
  if (!personal) throw invalid('guarantor', 'guarantor is only for a personal guarantee');
  const member = await trx('client_profiles')
    .where({ id: input.guarantorId, enterprise_id: credit.enterpriseId })
    .first('id', 'status');
  if (member === undefined) throw invalid('guarantor', "guarantor must be a member of the loan's enterprise");
  if (input.guarantorId === credit.borrowerId)
    throw invalid('guarantor', 'the borrower cannot guarantee their own loan');
  // A suspended member, or one who left, commits to nothing new.
  if (member.status !== 'active')
    throw new AppError('conflict', 'member_not_active', `The guarantor is ${member.status as string}.`, [
      { field: 'guarantor', message: `the guarantor is ${member.status as string}` },
    ]);
}

/** Where the guarantee holds money, the account checked and locked: a pledged deposit's, or a guarantor's own. */
async function holdAccount(trx: Knex.Transaction, input: GuaranteeInput, enterpriseId: string): Promise<void> {
  const pledged = input.kind === 'pledged_deposit';
  if (pledged && input.accountId === null) throw invalid('account', 'account is required for a pledged deposit');
  if (input.accountId === null) return;
  if (!pledged && input.kind !== 'personal_guarantor')
    throw invalid('account', "account is only for a pledged deposit or a guarantor's savings");
  if (input.endDate !== null) throw invalid('end_date', 'a held account is held until it is released: no end_date');
  await pledgedAccount(trx, input.accountId, enterpriseId, input.value, input.guarantorId);
}

/**
 * The guarantee's loan, when it has one, brought off-balance to its guarantees at the business date (docs/domain.md
 * §12.2).
 */
async function postGuaranteeEngagements(
  trx: Knex.Transaction,
  context: DataContext,
  actor: Actor,
  guarantee: { loan_id: string | null; enterprise_id: string },
) {
  if (guarantee.loan_id === null) return;
  const date = await businessDateOf(trx, guarantee.enterprise_id, context.clock());
  await postLoanEngagements(trx, { loanId: guarantee.loan_id, date, createdBy: actor.userId });
}

/**
 * Records a guarantee. It never changes a loan's class; the provisioning run reads it for the covered part, once in
 * force. A covering one (domain/loans/guarantee-confirmation.ts) is pending until a second person approves its
 * request (`guarantee.change`, docs/domain.md §11; `bringGuaranteeInForce`); a pledged deposit holds its value on the
 * account from the request on (a rejection frees it). On an application, it passes to the loan at final approval.
 */
export async function addGuarantee(context: ActivityContext, actor: Actor, input: GuaranteeInput) {
  return inTransaction(context.knex, async (trx) => {
    const credit = await securedCredit(trx, input);
    const { enterpriseId } = credit;
    await checkGuarantor(trx, input, credit);
    await holdAccount(trx, input, enterpriseId);
    const pending = needsConfirmation(input.kind);
    const [guarantee] = await trx('loan_guarantees')
      .insert({
        enterprise_id: enterpriseId,
        application_id: input.applicationId,
        loan_id: input.loanId,
        kind: input.kind,
        value: formatAmount(input.value),
        start_date: input.startDate,
        end_date: input.endDate,
        description: input.description,
        compte_client_id: input.accountId,
        guarantor_client_id: input.guarantorId,
        valuation_date: input.valuationDate,
        document_reference: input.documentReference,
        status: pending ? 'pending' : 'in_force',
        created_by: actor.userId,
      })
      .returning('*');
    if (!pending) await postGuaranteeEngagements(trx, context, actor, guarantee);
    await recordAudit(trx, actor, {
      action: 'loan_guarantee.add',
      entityType: 'loan_guarantee',
      entityId: guarantee.id,
      enterpriseId,
      details: {
        kind: input.kind,
        value: guarantee.value,
        cover: coverOf(input.kind),
        loan: input.loanId,
        application: input.applicationId,
        account: input.accountId,
        guarantor: input.guarantorId,
        status: guarantee.status,
      },
    });
    return guarantee as Record<string, unknown>;
  });
}

/**
 * A guarantee released or expired: it covers (and holds) nothing after its end date. Ending a covering guarantee
 * raises the provision and frees a pledged deposit: its route hands it to four eyes (`guarantee.change`, docs/domain.md
 * §11), and this runs at the approval.
 */
export async function endGuarantee(context: DataContext, actor: Actor, guaranteeId: string, endDate: string) {
  return inTransaction(context.knex, async (trx) => {
    const guarantee = await trx('loan_guarantees').where({ id: guaranteeId }).forUpdate().first();
    if (guarantee === undefined) throw new NotFoundError('The guarantee');
    if (endDate < guarantee.start_date)
      throw invalid('end_date', `end_date must not be before ${guarantee.start_date as string}`);
    if (guarantee.status !== 'in_force') {
      throw new AppError(
        'conflict',
        `guarantee_${guarantee.status as 'pending' | 'refused'}`,
        `The guarantee is ${guarantee.status as string}: only a guarantee in force is ended (a pending one is ` +
          `refused).`,
      );
    }
    const [updated] = await trx('loan_guarantees')
      .where({ id: guaranteeId })
      .update({ end_date: endDate })
      .returning('*');
    await postGuaranteeEngagements(trx, context, actor, updated);
    await recordAudit(trx, actor, {
      action: 'loan_guarantee.end',
      entityType: 'loan_guarantee',
      entityId: guaranteeId,
      enterpriseId: guarantee.enterprise_id,
      details: { end_date: endDate },
    });
    return updated as Record<string, unknown>;
  });
}

export interface Revaluation {
  value: Money;
  valuationDate: string;
}

/**
 * A guarantee valued anew (docs/domain.md §14.4): its value and valuation date, its loan's off-balance brought to them.
 * A covering one's route hands it to four eyes (`guarantee.change`, it moves the provision) and this runs at the
 * approval. A held account's amount is what the guarantee holds: it is released and asked again, not revalued.
 */
export async function revalueGuarantee(
  context: DataContext,
  actor: Actor,
  guaranteeId: string,
  revaluation: Revaluation,
) {
  return inTransaction(context.knex, async (trx) => {
    const guarantee = await trx('loan_guarantees').where({ id: guaranteeId }).forUpdate().first();
    if (guarantee === undefined) throw new NotFoundError('The guarantee');
    if (guarantee.status !== 'in_force' || guarantee.end_date !== null) {
      throw new AppError(
        'conflict',
        'guarantee_not_in_force',
        'Only a guarantee in force and not ended is valued anew.',
      );
    }
    if (guarantee.compte_client_id !== null) {
      throw new AppError(
        'conflict',
        'guarantee_held',
        'The guarantee holds an account: end it and add the new amount instead.',
        [{ field: 'value', message: 'a held amount is not revalued' }],
      );
    }
    const previous = (guarantee.valuation_date ?? guarantee.start_date) as string;
    if (revaluation.valuationDate < previous)
      throw invalid('valuation_date', `valuation_date must not be before the last valuation, ${previous}`);
    const [updated] = await trx('loan_guarantees')
      .where({ id: guaranteeId })
      .update({ value: formatAmount(revaluation.value), valuation_date: revaluation.valuationDate })
      .returning('*');
    // Kept with the value it replaces: the register at an earlier date reads that one (docs/domain.md §14.4).
    await trx('guarantee_revaluations').insert({
      enterprise_id: guarantee.enterprise_id,
      guarantee_id: guaranteeId,
      value_before: guarantee.value,
      valuation_date_before: previous,
      value: updated.value,
      valuation_date: revaluation.valuationDate,
      created_by: actor.userId,
    });
    await postGuaranteeEngagements(trx, context, actor, updated);
    await recordAudit(trx, actor, {
      action: 'loan_guarantee.revalue',
      entityType: 'loan_guarantee',
      entityId: guaranteeId,
      enterpriseId: guarantee.enterprise_id,
      details: { from: guarantee.value, to: updated.value, valuation_date: revaluation.valuationDate },
    });
    return updated as Record<string, unknown>;
  });
}

/**
 * A guarantee's change under four eyes (`guarantee.change`): its addition (the guarantee waits `pending`), its end at
 * a date, or (issue 30) its revaluation. Amounts travel as text: the payload is JSON.
 */
export type GuaranteeChange =
  | { guaranteeId: string; change: 'add' }
  | { guaranteeId: string; endDate: string }
  | { guaranteeId: string; change: 'revalue'; value: string; valuationDate: string };

/** The approved change applied, as the maker's. */
export async function applyGuaranteeChange(context: DataContext, maker: Actor, payload: GuaranteeChange) {
  if ('endDate' in payload) return endGuarantee(context, maker, payload.guaranteeId, payload.endDate);
  if (payload.change === 'revalue')
    return revalueGuarantee(context, maker, payload.guaranteeId, {
      value: new Money(payload.value),
      valuationDate: payload.valuationDate,
    });
  return bringGuaranteeInForce(context, maker, payload.guaranteeId);
}

/** A second change of a guarantee while one awaits its second person. */
export const confirmationPending = new AppError(
  'conflict',
  'confirmation_pending',
  'A change of this guarantee awaits its confirmation.',
);

/**
 * A covering guarantee's addition, approved (`guarantee.change`, docs/domain.md §11): in force from now, its loan's
 * off-balance brought to it. The loan may have been repaid meanwhile (or the application decided): a guarantee is not
 * brought in force on a finished one.
 */
export async function bringGuaranteeInForce(context: DataContext, actor: Actor, guaranteeId: string) {
  return inTransaction(context.knex, async (trx) => {
    const guarantee = await trx('loan_guarantees').where({ id: guaranteeId }).forUpdate().first();
    if (guarantee === undefined) throw new NotFoundError('The guarantee');
    // Brought in force already: nothing more to do.
    if (guarantee.status === 'in_force') return guarantee as Record<string, unknown>;
    if (guarantee.status === 'refused')
      throw new AppError('conflict', 'guarantee_refused', 'The guarantee was refused: ask for it again.');
    await securedCredit(trx, { loanId: guarantee.loan_id, applicationId: guarantee.application_id });
    const [updated] = await trx('loan_guarantees')
      .where({ id: guaranteeId })
      .update({ status: 'in_force' })
      .returning('*');
    await postGuaranteeEngagements(trx, context, actor, updated);
    await recordAudit(trx, actor, {
      action: 'loan_guarantee.in_force',
      entityType: 'loan_guarantee',
      entityId: guaranteeId,
      enterpriseId: guarantee.enterprise_id,
      details: { value: guarantee.value },
    });
    return updated as Record<string, unknown>;
  });
}

/** The addition's request ended unapplied (rejected, expired, failed): the guarantee is refused, its hold freed. */
export async function refusePendingGuarantee(trx: Knex.Transaction, guaranteeId: string): Promise<void> {
  await trx('loan_guarantees').where({ id: guaranteeId, status: 'pending' }).update({ status: 'refused' });
}
