import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { maturityDateOf } from '../../domain/members/savings-interest';
import { formatAmount, Money } from '../../domain/money';
import { CompteClient } from '../../db/models/compte-client.model';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { nextSequenceValue } from '../../db/sequences';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { moveCash, type CashOperation } from './cash-operations.activity';
import { assertNotPledged } from './account-holds';
import { payoutAccountAtOpening } from './payout-accounts';

export interface OpenAccountInput {
  clientId: string;
  productId: string;
  /** Required, and at least the product's minimum opening balance, when that minimum is above zero. */
  initialDeposit: Money | null;
  idempotencyKey: string | null;
  /** Term deposits only: the member's demand account paid at maturity; null, the first open one (docs/domain.md §9). */
  payoutAccountId?: string | null;
}

/**
 * Opens a member's account under a product, in the member's branch, numbered from the branch's gap-free
 * sequence (`{branch}-{product}-{n}`), with its initial deposit posted in the same transaction.
 */
export async function openAccount(
  context: ActivityContext,
  actor: Actor,
  input: OpenAccountInput,
): Promise<{ account: CompteClient; initialDeposit: CashOperation | null }> {
  return inTransaction(context.knex, async (trx) => {
    const client = await trx('client_profiles as c')
      .join('branches as b', 'b.id', 'c.branch_id')
      .where('c.id', input.clientId)
      .forUpdate('c')
      .first('c.id', 'c.enterprise_id', 'c.branch_id', 'c.status', 'b.code as branch_code');
    if (client === undefined) throw new NotFoundError('The member');
    if (client.status !== 'active')
      throw new AppError('conflict', 'member_not_active', `The member is ${client.status}: no account can be opened.`);
    const product = await SavingsProduct.query(trx).findById(input.productId);
    if (product === undefined || product.enterpriseId !== client.enterprise_id || !product.isActive) {
      throw new AppError(
        'validation',
        'invalid_request',
        "The product is not an active savings product of the member's enterprise.",
        [{ field: 'product', message: 'product must be an active savings product of the enterprise' }],
      );
    }
    const minimum = new Money(product.minimumOpeningBalance);
    if (minimum.gt(0) && (input.initialDeposit === null || input.initialDeposit.lt(minimum))) {
      throw new AppError('validation', 'invalid_request', "The initial deposit is below the product's minimum.", [
        { field: 'initial_deposit', message: `initial_deposit must be at least ${formatAmount(minimum)}` },
      ]);
    }
    const term = await termOf(trx, product, client.id, input.payoutAccountId ?? null);
    const openedOn = await businessDateOf(trx, client.enterprise_id, context.clock());
    const sequence = await nextSequenceValue(trx, {
      name: 'compte_client',
      enterpriseId: client.enterprise_id,
      branchId: client.branch_id,
    });
    const account = await CompteClient.query(trx).insertAndFetch({
      enterpriseId: client.enterprise_id,
      branchId: client.branch_id,
      clientId: client.id,
      productId: product.id,
      number: `${client.branch_code}-${product.code}-${String(sequence).padStart(7, '0')}`,
      openedOn,
      openedBy: actor.userId,
      maturityDate: term === null ? null : maturityDateOf(openedOn, term.months),
      payoutAccountId: term?.payoutAccountId ?? null,
    });
    await recordAudit(trx, actor, {
      action: 'compte_client.open',
      entityType: 'compte_client',
      entityId: account.id,
      enterpriseId: account.enterpriseId,
      details: { number: account.number, product: product.code },
    });
    const initialDeposit =
      input.initialDeposit === null
        ? null
        : await moveCash(trx, context.clock(), actor, 'deposit', {
            accountId: account.id,
            amount: input.initialDeposit,
            channel: 'cash',
            reference: 'initial deposit',
            idempotencyKey: input.idempotencyKey,
          });
    return { account: await CompteClient.query(trx).findById(account.id).throwIfNotFound(), initialDeposit };
  });
}

interface Term {
  months: number;
  payoutAccountId: string;
}

/** A term deposit's term and payout account; refused on other kinds, which have neither. */
async function termOf(
  trx: Knex.Transaction,
  product: SavingsProduct,
  clientId: string,
  payoutAccountId: string | null,
): Promise<Term | null> {
  if (product.kind !== 'term_deposit' || product.termMonths === null) {
    if (payoutAccountId !== null)
      throw new AppError('validation', 'invalid_request', 'Only a term deposit has a payout account.', [
        { field: 'payout_account', message: 'payout_account is only for a term deposit' },
      ]);
    return null;
  }
  return {
    months: product.termMonths,
    payoutAccountId: (await payoutAccountAtOpening(trx, clientId, payoutAccountId)).id,
  };
}

const transitions: Record<
  'freeze' | 'unfreeze' | 'close',
  { from: CompteClient['status']; to: CompteClient['status'] }
> = {
  freeze: { from: 'open', to: 'frozen' },
  unfreeze: { from: 'frozen', to: 'open' },
  close: { from: 'open', to: 'closed' },
};

/** Freeze (no movement), unfreeze, close (final; the balance must be zero). Audited with the reason. */
export async function changeAccountStatus(
  context: ActivityContext,
  actor: Actor,
  accountId: string,
  action: keyof typeof transitions,
  reason: string,
): Promise<CompteClient> {
  return inTransaction(context.knex, async (trx) => {
    const account = await CompteClient.query(trx).findById(accountId).forUpdate().throwIfNotFound();
    const { from, to } = transitions[action];
    if (account.status !== from)
      throw new AppError(
        'conflict',
        'invalid_status_transition',
        `A ${account.status} account cannot be ${action === 'close' ? 'closed' : `${action}d`}.`,
      );
    if (action === 'close') await assertNotPledged(trx, account);
    if (action === 'close' && !new Money(account.balance).isZero()) {
      throw new AppError(
        'conflict',
        'balance_not_zero',
        `The account still holds ${account.balance} XAF: withdraw or transfer it first.`,
      );
    }
    const closedOn =
      action === 'close' ? await businessDateOf(trx, account.enterpriseId, context.clock()) : account.closedOn;
    const updated = await CompteClient.query(trx).patchAndFetchById(accountId, { status: to, closedOn });
    await recordAudit(trx, actor, {
      action: `compte_client.${action}`,
      entityType: 'compte_client',
      entityId: accountId,
      enterpriseId: account.enterpriseId,
      details: { reason },
    });
    return updated;
  });
}
