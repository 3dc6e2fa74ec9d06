import type { Knex } from 'knex';
import { nextSupplierAccountCode, supplierParentAccount } from '../../domain/accounting/suppliers';
import { AppError, NotFoundError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { Supplier } from '../../db/models/supplier.model';
import { inTransaction } from '../../db/transaction';
import { addSubAccount } from '../accounts/chart-entries.activity';
import { changedValues, recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';

export interface SupplierFields {
  name: string;
  taxId: string | null;
  contact: string | null;
}

export interface SupplierChanges extends Partial<SupplierFields> {
  isActive?: boolean;
}

const taxIdTaken = (taxId: string | null) =>
  new AppError(
    'conflict',
    'supplier_tax_id_taken',
    `Another supplier of the enterprise has the tax id ${taxId ?? ''}.`,
    [{ field: 'tax_id', message: 'tax_id is taken' }],
  );

/**
 * Registers a supplier and opens its account, the next free sub-account of 40110 (docs/domain.md §12.5), in one
 * transaction: a supplier never exists without its account. 40110 is locked while the code is chosen, so two
 * suppliers created at once take two codes.
 */
export async function createSupplier(
  context: ActivityContext,
  actor: Actor,
  input: SupplierFields & { enterpriseId: string; branchId: string | null },
): Promise<Supplier> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const parent = await trx('company_chart_entries')
        .where({ enterprise_id: input.enterpriseId, code: supplierParentAccount })
        .forUpdate()
        .first('chart_id');
      if (parent === undefined)
        throw new AppError(
          'unprocessable',
          'account_unknown',
          `The enterprise's chart has no account ${supplierParentAccount}.`,
        );
      if (input.branchId !== null) await assertBranchOf(trx, input.enterpriseId, input.branchId);
      const taken = await trx('company_chart_entries')
        .where({ chart_id: parent.chart_id, parent_code: supplierParentAccount })
        .pluck('code');
      const code = nextSupplierAccountCode(taken);
      if (code === null)
        throw new AppError(
          'conflict',
          'supplier_accounts_full',
          `The 999 supplier accounts under ${supplierParentAccount} are taken.`,
        );
      const account = await addSubAccount({ ...context, knex: trx }, actor, parent.chart_id, {
        parentCode: supplierParentAccount,
        code,
        label: input.name,
      });
      const supplier = await Supplier.query(trx).insertAndFetch({
        enterpriseId: input.enterpriseId,
        branchId: input.branchId,
        name: input.name,
        taxId: input.taxId,
        contact: input.contact,
        chartEntryId: account.id,
        accountCode: code,
        isActive: true,
        createdBy: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'supplier.create',
        entityType: 'supplier',
        entityId: supplier.id,
        enterpriseId: supplier.enterpriseId,
        details: { name: supplier.name, account: code },
      });
      return supplier;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'suppliers_tax_id_unique')) throw taxIdTaken(input.taxId);
    throw error;
  }
}

/** A branch the request names belongs to the enterprise, or the request is refused naming `branch`. */
export async function assertBranchOf(trx: Knex.Transaction, enterpriseId: string, branchId: string): Promise<void> {
  const branch = await trx('branches').where({ id: branchId, enterprise_id: enterpriseId }).first('id');
  if (branch === undefined)
    throw new AppError('validation', 'invalid_request', 'branch is not a branch of the enterprise.', [
      { field: 'branch', message: 'branch is not a branch of the enterprise' },
    ]);
}

/** Renames (the account's label follows), changes the tax id or contact, deactivates or reactivates a supplier. */
export async function updateSupplier(
  context: ActivityContext,
  actor: Actor,
  supplierId: string,
  changes: SupplierChanges,
): Promise<Supplier> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const supplier = await Supplier.query(trx).findById(supplierId).forUpdate();
      if (supplier === undefined) throw new NotFoundError('The supplier');
      const updated = await Supplier.query(trx).patchAndFetchById(supplier.id, changes);
      if (changes.name !== undefined && changes.name !== supplier.name)
        await trx('company_chart_entries').where({ id: supplier.chartEntryId }).update({ label: changes.name });
      const action = changes.isActive === false && supplier.isActive ? 'supplier.deactivate' : 'supplier.update';
      await recordAudit(trx, actor, {
        action,
        entityType: 'supplier',
        entityId: supplier.id,
        enterpriseId: supplier.enterpriseId,
        ...changedValues(changes, supplier, updated),
      });
      return updated;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'suppliers_tax_id_unique')) throw taxIdTaken(changes.taxId ?? null);
    throw error;
  }
}
