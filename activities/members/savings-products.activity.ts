import type { Knex } from 'knex';
import { AppError } from '../../domain/errors';
import {
  defaultAccruedInterestAccount,
  defaultInterestExpenseAccount,
  defaultInterestSettings,
} from '../../domain/members/savings-interest';
import { isUniqueViolation } from '../../db/errors';
import { SavingsProduct } from '../../db/models/savings-product.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { postableAccounts } from '../events/accounts';
import { Money } from '../../domain/money';

export interface ProductFields {
  code: string;
  name: string;
  kind: SavingsProduct['kind'];
  minimumOpeningBalance: string;
  minimumBalance: string;
  withdrawalsAllowed: boolean;
  interestRate: string;
  depositAccountCode: string;
  /** Term deposits only, and required for them. */
  termMonths?: number;
}

/** How the product pays interest (docs/domain.md §9); what a creation leaves out takes the defaults. */
export type InterestSettings = Pick<
  SavingsProduct,
  | 'interestBasis'
  | 'dayCount'
  | 'postingFrequency'
  | 'withholdingTaxRate'
  | 'withholdingTaxAccountCode'
  | 'interestExpenseAccountCode'
  | 'accruedInterestAccountCode'
  | 'interestPayment'
>;

/** What a term deposit does at maturity and pays when closed before (docs/domain.md §9); null for the other kinds. */
export type TermSettings = Pick<SavingsProduct, 'maturityInstruction' | 'earlyClosureRate'>;

type ProductChanges = Partial<Omit<ProductFields, 'code' | 'kind'> & InterestSettings & TermSettings> & {
  isActive?: boolean;
  /** The day a new interest rate applies from (default: the business date). */
  interestRateFrom?: string;
};

/** The fields given: an absent optional field of the caller's object must not override a default. */
const withoutUndefined = <T extends object>(fields: T): Partial<T> =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined)) as Partial<T>;

const invalid = (field: string, message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field, message }]);

/**
 * Deposits of a product are held on a postable class-3 account (operations with members) of the
 * enterprise's chart: 3711 current accounts, 373 savings books, 36x term deposits, or a sub-account of those.
 */
async function assertDepositAccount(trx: Knex.Transaction, enterpriseId: string, code: string): Promise<void> {
  if (!code.startsWith('3'))
    throw invalid('deposit_account_code', 'deposit_account_code must be a class 3 account (operations with members)');
  await postableAccounts(trx, enterpriseId, [code]);
}

/**
 * The interest is an expense of 61 (interest on operations with members: 612 term deposits, 613 savings books…),
 * the tax withheld a debt to the State in 43 (4302 État, autres impôts et taxes): docs/domain.md §9. Both postable.
 */
async function assertInterestAccounts(
  trx: Knex.Transaction,
  enterpriseId: string,
  codes: Partial<
    Pick<InterestSettings, 'interestExpenseAccountCode' | 'withholdingTaxAccountCode' | 'accruedInterestAccountCode'>
  >,
): Promise<void> {
  const {
    interestExpenseAccountCode: expense,
    withholdingTaxAccountCode: tax,
    accruedInterestAccountCode: accrued,
  } = codes;
  if (expense !== undefined && !expense.startsWith('61'))
    throw invalid(
      'interest_expense_account_code',
      'interest_expense_account_code must be an account of 61 (interest on operations with members)',
    );
  if (tax !== undefined && !tax.startsWith('43'))
    throw invalid(
      'withholding_tax_account_code',
      'withholding_tax_account_code must be an account of 43 (the State, taxes)',
    );
  if (accrued !== undefined && !accrued.startsWith('3'))
    throw invalid(
      'accrued_interest_account_code',
      'accrued_interest_account_code must be an account of class 3 (dettes rattachées: 369, 359, 378)',
    );
  await postableAccounts(
    trx,
    enterpriseId,
    [expense, tax, accrued].filter((code): code is string => code !== undefined),
  );
}

/**
 * A term product's maturity and early-closure settings against its other terms: none on another kind; the penalty
 * rate from 0 to the product's rate (a member closing early never earns more than one keeping the contract); a
 * renewal with the interest only where the interest stays in the deposit until maturity (`at_maturity`), since one
 * paid out at each posting is no longer there to renew. `given`: a change of the rate or the interest payment
 * alone, which the refusal then names, as it broke a term setting kept.
 */
function assertTermSettings(
  product: Pick<SavingsProduct, 'kind' | 'interestRate' | 'interestPayment'> & Partial<TermSettings>,
  given: Partial<Record<'rate' | 'payment', boolean>> = {},
): void {
  const { kind, maturityInstruction, earlyClosureRate } = product;
  if (kind !== 'term_deposit') {
    if (maturityInstruction !== undefined && maturityInstruction !== null)
      throw invalid('maturity_instruction', 'maturity_instruction is only for a term deposit');
    if (earlyClosureRate !== undefined && earlyClosureRate !== null)
      throw invalid('early_closure_rate', 'early_closure_rate is only for a term deposit');
    return;
  }
  if (
    earlyClosureRate !== undefined &&
    earlyClosureRate !== null &&
    new Money(earlyClosureRate).gt(product.interestRate)
  ) {
    const field = given.rate === true ? 'interest_rate' : 'early_closure_rate';
    throw invalid(
      field,
      `early_closure_rate (${earlyClosureRate}) must be from 0 to the product's interest_rate ` +
        `(${product.interestRate})`,
    );
  }
  if (maturityInstruction === 'renew_with_interest' && product.interestPayment !== 'at_maturity') {
    const field = given.payment === true ? 'interest_payment' : 'maturity_instruction';
    throw invalid(
      field,
      'maturity_instruction renew_with_interest needs interest_payment at_maturity: interest paid out at ' +
        'each posting cannot be renewed',
    );
  }
}

export async function createSavingsProduct(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  fields: ProductFields & Partial<InterestSettings & TermSettings>,
): Promise<SavingsProduct> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      if ((fields.kind === 'term_deposit') !== (fields.termMonths !== undefined))
        throw invalid('term_months', 'term_months is required for a term deposit and only for one');
      await assertDepositAccount(trx, enterpriseId, fields.depositAccountCode);
      const term = fields.kind === 'term_deposit';
      const defaults: InterestSettings & TermSettings = {
        ...defaultInterestSettings,
        interestPayment: term ? 'at_maturity' : 'to_account',
        interestExpenseAccountCode: defaultInterestExpenseAccount(fields.depositAccountCode),
        accruedInterestAccountCode: defaultAccruedInterestAccount(fields.depositAccountCode),
        maturityInstruction: term ? 'pay_out' : null,
        earlyClosureRate: term ? '0' : null,
      };
      const settled = { ...defaults, ...withoutUndefined(fields), termMonths: fields.termMonths ?? null };
      await assertInterestAccounts(trx, enterpriseId, settled);
      assertInterestPayment(fields.kind, settled.interestPayment);
      assertTermSettings({ ...settled, kind: fields.kind, interestRate: fields.interestRate });
      const product = await SavingsProduct.query(trx).insertAndFetch({ enterpriseId, ...settled });
      await trx('savings_product_rates').insert({
        enterprise_id: enterpriseId,
        product_id: product.id,
        effective_from: firstRateDate,
        annual_rate: product.interestRate,
        reason: 'the rate at creation',
        created_by: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'savings_product.create',
        entityType: 'savings_product',
        entityId: product.id,
        enterpriseId,
        details: { ...settled },
      });
      return product;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'savings_products_code_unique'))
      throw new AppError(
        'conflict',
        'product_code_taken',
        `A savings product with code ${fields.code} already exists.`,
      );
    throw error;
  }
}

/**
 * A term deposit never earns interest on its interest: it is paid at maturity or to the member's demand account;
 * the other kinds are paid into the account itself (docs/domain.md §9).
 */
function assertInterestPayment(
  kind: SavingsProduct['kind'],
  payment: SavingsProduct['interestPayment'] | undefined,
): void {
  if (payment === undefined) return;
  if ((kind === 'term_deposit') !== (payment !== 'to_account')) {
    const allowed = kind === 'term_deposit' ? 'at_maturity or to_payout_account' : 'to_account';
    throw invalid('interest_payment', `interest_payment of a ${kind.replaceAll('_', ' ')} must be ${allowed}`);
  }
}

/** The product's first rate holds from before any account could be opened. */
const firstRateDate = '1900-01-01';

/**
 * A new rate from `from` (docs/domain.md §9): never into days whose interest an account of the product was already
 * paid, and one change a day. The product's `interest_rate` is its latest rate.
 */
async function changeRate(
  trx: Knex.Transaction,
  actor: Actor,
  product: SavingsProduct,
  rate: string,
  from: string,
): Promise<void> {
  const paid = await trx('savings_interest_postings as s')
    .join('comptes_clients as a', 'a.id', 's.compte_client_id')
    .where('a.product_id', product.id)
    .first(trx.raw(`to_char(max(s.interest_to), 'YYYY-MM-DD') AS through`));
  if (paid?.through !== null && paid?.through !== undefined && from <= paid.through) {
    throw new AppError(
      'conflict',
      'rate_change_in_paid_period',
      `Interest of this product is paid through ${paid.through as string}: a new rate applies from a later day.`,
      [{ field: 'interest_rate_from', message: `must be after ${paid.through as string}` }],
    );
  }
  const latest = await trx('savings_product_rates')
    .where({ product_id: product.id })
    .orderBy('effective_from', 'desc')
    .first(trx.raw(`to_char(effective_from, 'YYYY-MM-DD') AS from`));
  if (latest !== undefined && from <= latest.from) {
    throw new AppError(
      'conflict',
      'rate_change_not_after_latest',
      `A rate of this product applies from ${latest.from as string}: a new rate applies from a later day.`,
      [{ field: 'interest_rate_from', message: `must be after ${latest.from as string}` }],
    );
  }
  await trx('savings_product_rates').insert({
    enterprise_id: product.enterpriseId,
    product_id: product.id,
    effective_from: from,
    annual_rate: rate,
    reason: `changed by ${actor.userId}`,
    created_by: actor.userId,
  });
}

/**
 * The code and kind of a product never change (account numbers and reports carry them); the rest may. A new rate
 * applies from its date (`interestRateFrom`, the business date by default), the other interest settings from the
 * next posting; a new term, to the accounts opened after (a maturity is fixed at opening).
 */
export async function updateSavingsProduct(
  context: ActivityContext,
  actor: Actor,
  productId: string,
  requested: ProductChanges,
): Promise<SavingsProduct> {
  return inTransaction(context.knex, async (trx) => {
    const product = await SavingsProduct.query(trx).findById(productId).forUpdate().throwIfNotFound();
    const { interestRateFrom, ...changes } = requested;
    if (hasNoChanges(changes)) return product;
    if (changes.interestRate !== undefined && !new Money(changes.interestRate).eq(product.interestRate)) {
      await changeRate(
        trx,
        actor,
        product,
        changes.interestRate,
        interestRateFrom ?? (await businessDateOf(trx, product.enterpriseId, context.clock())),
      );
    }
    if (changes.termMonths !== undefined && product.kind !== 'term_deposit')
      throw invalid('term_months', 'term_months is only for a term deposit');
    assertInterestPayment(product.kind, changes.interestPayment);
    assertTermSettings(
      { ...product, ...withoutUndefined(changes) },
      {
        rate: changes.interestRate !== undefined && changes.earlyClosureRate === undefined,
        payment: changes.interestPayment !== undefined && changes.maturityInstruction === undefined,
      },
    );
    await assertInterestAccounts(trx, product.enterpriseId, changes);
    if (changes.depositAccountCode !== undefined && changes.depositAccountCode !== product.depositAccountCode) {
      const [opened] = await trx('comptes_clients')
        .where({ product_id: productId })
        .whereNot('status', 'closed')
        .count({ count: '*' });
      if (Number(opened?.count) > 0) {
        throw new AppError(
          'conflict',
          'product_has_accounts',
          'Accounts of this product hold deposits on the current account: its deposit account cannot move.',
        );
      }
      await assertDepositAccount(trx, product.enterpriseId, changes.depositAccountCode);
    }
    const updated = await SavingsProduct.query(trx).patchAndFetchById(productId, changes);
    await recordAudit(trx, actor, {
      action: 'savings_product.update',
      entityType: 'savings_product',
      entityId: productId,
      enterpriseId: product.enterpriseId,
      details: { ...changes, interestRateFrom },
      ...changedValues(changes, product, updated),
    });
    return updated;
  });
}
