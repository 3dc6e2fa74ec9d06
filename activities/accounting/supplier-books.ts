import type { Knex } from 'knex';
import type { ChartAccount } from '../../domain/accounting/suppliers';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { Supplier } from '../../db/models/supplier.model';
import { assertDayOpen } from '../enterprise/closed-days';
import { businessDateOf } from '../enterprise/configuration.activity';

/** What an invoice and a payment both check before they post to a supplier's account (docs/domain.md §12.5). */

const invalid = (field: string, message: string) =>
  new AppError('validation', 'invalid_request', message, [{ field, message }]);

/**
 * The supplier, locked (two payments cannot settle the same remainder, nor two invoices take one number, nor an
 * invoice be reversed while a payment settles it), and the branch the posting goes to: the supplier's own, else
 * the one the request names (required then).
 */
export async function supplierAndBranch(trx: Knex.Transaction, input: { supplierId: string; branchId: string | null }) {
  const supplier = await Supplier.query(trx).findById(input.supplierId).forUpdate();
  if (supplier === undefined) throw new NotFoundError('The supplier');
  if (supplier.branchId !== null && input.branchId !== null && input.branchId !== supplier.branchId)
    throw invalid('branch', "branch must be the supplier's own branch.");
  const branchId = supplier.branchId ?? input.branchId;
  if (branchId === null) throw invalid('branch', 'branch is required for a supplier of the whole enterprise.');
  const known = await trx('branches').where({ id: branchId, enterprise_id: supplier.enterpriseId }).first('id');
  if (known === undefined) throw invalid('branch', 'branch is not a branch of the enterprise.');
  return { supplier, branchId };
}

/** Books are kept up to the business date, never ahead of it (as a manual entry's date), nor in a closed day. */
export async function assertNotAfterBusinessDate(
  trx: Knex | Knex.Transaction,
  enterpriseId: string,
  now: Date,
  date: IsoDate,
  field: string,
): Promise<void> {
  const businessDate = await businessDateOf(trx, enterpriseId, now);
  if (date > businessDate) {
    throw new AppError(
      'unprocessable',
      'as_of_after_business_date',
      `${field} is after the business date ${businessDate}.`,
      [{ field, message: `${field} must not be after ${businessDate}` }],
    );
  }
  await assertDayOpen(trx, enterpriseId, date, field);
}

/** An account of the enterprise's chart named by the request, or a refusal naming the field. */
export async function chartAccountOf(
  trx: Knex.Transaction,
  enterpriseId: string,
  code: string,
  field: string,
): Promise<ChartAccount> {
  const account = await trx('company_chart_entries')
    .where({ enterprise_id: enterpriseId, code })
    .first('code', 'class');
  if (account === undefined)
    throw new AppError('unprocessable', 'account_unknown', `The chart has no account ${code}.`, [
      { field, message: `${field} is not an account of the chart` },
    ]);
  return account as ChartAccount;
}
