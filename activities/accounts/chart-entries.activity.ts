import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { isUniqueViolation } from '../../db/errors';
import { CompanyChartEntry } from '../../db/models/company-chart-entry.model';
import { inTransaction } from '../../db/transaction';
import { assertNotUsedByRules } from '../events/rule-accounts';
import { changedValues, recordAudit, type AuditEntry } from '../audit';
import type { ActivityContext, Actor } from '../context';

export interface SubAccountFields {
  parentCode: string;
  code: string;
  label: string;
}

export interface EntryChanges {
  label?: string;
  isActive?: boolean;
}

/** A sub-account's code is its parent's followed by one to three digits (3711 -> 37110 … 3711999). */
const extensionDigitsMax = 3;

/**
 * The ledger's hook: true when journal lines post to the chart entry. An account with postings may not get
 * sub-accounts (it would stop being a leaf, and the ledger posts to leaves only) nor be deleted.
 * The callers hold the entry's row lock (FOR UPDATE): a posting that locks its accounts (FOR SHARE) before
 * checking they are leaves can then neither slip in between this check and their change nor miss it.
 */
async function entryHasPostings(trx: Knex.Transaction, entryId: string): Promise<boolean> {
  // journal_lines belongs to the ledger, whose migration runs after the chart's: on a database migrated without
  // it no posting can exist, and a query naming the missing table would fail, so its absence means "none".
  const ledger = await trx.raw(`SELECT to_regclass('journal_lines') IS NOT NULL AS present`);
  if (!ledger.rows[0].present) return false;
  const lines = await trx.raw('SELECT EXISTS (SELECT 1 FROM journal_lines WHERE chart_entry_id = ?) AS posted', [
    entryId,
  ]);
  return lines.rows[0].posted as boolean;
}

/**
 * Opens an enterprise sub-account under `parentCode` (classes 1 to 5), e.g. one per savings product. The
 * parent must be a leaf of the plan or one of the enterprise's sub-accounts, and must not have postings.
 */
export async function addSubAccount(
  context: ActivityContext,
  actor: Actor,
  chartId: string,
  fields: SubAccountFields,
): Promise<CompanyChartEntry> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const parent = await CompanyChartEntry.query(trx)
        .where({ chart_id: chartId, code: fields.parentCode })
        .forUpdate()
        .first();
      if (parent === undefined) throw invalidField('parent_code', `The chart has no account ${fields.parentCode}.`);
      await assertExtensible(trx, parent, fields.code);
      await assertNotUsedByRules(trx, parent.enterpriseId, parent.code, 'open a sub-account under it');
      const entry = await CompanyChartEntry.query(trx).insertAndFetch({
        chartId,
        enterpriseId: parent.enterpriseId,
        recordId: null,
        code: fields.code,
        label: fields.label,
        class: parent.class,
        parentCode: parent.code,
        isSystem: false, // assertExtensible refused the system classes
      });
      await audit(trx, actor, 'chart_entry.create', entry, { parent_code: parent.code, label: fields.label });
      return entry;
    });
  } catch (error) {
    // A concurrent request may take the code between the check and the insert: the unique index decides.
    if (
      isUniqueViolation(error, 'company_chart_entries_code_unique') ||
      isUniqueViolation(error, 'company_chart_entries_enterprise_code_unique')
    ) {
      throw codeTaken(fields.code);
    }
    throw error;
  }
}

async function assertExtensible(trx: Knex.Transaction, parent: CompanyChartEntry, code: string): Promise<void> {
  if (parent.isSystem) {
    throw new AppError(
      'conflict',
      'system_account',
      `Account ${parent.code} is a system account (class ${parent.class}): sub-accounts are opened in ` +
        `classes 1 to 5 only.`,
    );
  }
  const extension = code.slice(parent.code.length);
  if (!code.startsWith(parent.code) || extension.length < 1 || extension.length > extensionDigitsMax) {
    throw invalidField('code', `code must be ${parent.code} followed by 1 to ${extensionDigitsMax} digits.`);
  }
  if (!parent.isActive)
    throw new AppError(
      'unprocessable',
      'account_inactive',
      `Account ${parent.code} is deactivated: reactivate it first.`,
    );
  if (await hasPlanChildren(trx, parent)) {
    throw new AppError(
      'conflict',
      'parent_not_leaf',
      `Account ${parent.code} has accounts of the plan below it: open the sub-account under one of its leaves.`,
    );
  }
  const overlapping = await overlappingCode(trx, parent, code);
  if (overlapping === code) throw codeTaken(code);
  if (overlapping !== undefined) {
    throw new AppError(
      'conflict',
      'account_code_overlaps',
      `Account ${overlapping} already extends ${parent.code} along ${code}: choose a code beside it, or open ` +
        `it under ${overlapping}.`,
    );
  }
  if (await entryHasPostings(trx, parent.id)) {
    throw new AppError('conflict', 'account_has_postings', `Account ${parent.code} has postings: it must stay a leaf.`);
  }
}

/** Sub-accounts extend leaves of the plan (docs/domain.md §1), never sit beside the plan's own accounts. */
async function hasPlanChildren(trx: Knex.Transaction, parent: CompanyChartEntry): Promise<boolean> {
  const child = await trx('company_chart_entries')
    .where({ chart_id: parent.chartId, parent_code: parent.code })
    .whereNotNull('record_id')
    .first('id');
  return child !== undefined;
}

/**
 * `code` itself when taken, else a sub-account of `parent` that `code` would nest in or around (371101 for a
 * new 37110 or 3711011 under 3711): the new account's parent would not be its longest existing prefix.
 */
async function overlappingCode(
  trx: Knex.Transaction,
  parent: CompanyChartEntry,
  code: string,
): Promise<string | undefined> {
  const row = await trx('company_chart_entries')
    .where({ chart_id: parent.chartId })
    .whereNot('code', parent.code)
    .whereRaw('starts_with(code, ?)', [parent.code])
    .where((nested) => nested.whereRaw('starts_with(code, ?)', [code]).orWhereRaw('starts_with(?, code)', [code]))
    .orderByRaw('code = ? DESC', [code])
    .first('code');
  return row?.code;
}

/** Renames and/or (de)activates an account; the plan's system accounts (classes 6 to 9) never change. */
export async function updateEntry(
  context: ActivityContext,
  actor: Actor,
  chartId: string,
  entryId: string,
  changes: EntryChanges,
): Promise<CompanyChartEntry> {
  return inTransaction(context.knex, async (trx) => {
    const entry = await lockedEntry(trx, chartId, entryId);
    const renamed = changes.label !== undefined && changes.label !== entry.label;
    const toggled = changes.isActive !== undefined && changes.isActive !== entry.isActive;
    if (!renamed && !toggled) return entry;
    if (entry.isSystem)
      throw new AppError(
        'conflict',
        'system_account',
        `Account ${entry.code} is a system account: it is never renamed or deactivated.`,
      );
    if (changes.isActive === false && toggled)
      await assertNotUsedByRules(trx, entry.enterpriseId, entry.code, 'deactivate it');
    const updated = await CompanyChartEntry.query(trx).patchAndFetchById(entry.id, {
      label: renamed ? changes.label : undefined,
      isActive: toggled ? changes.isActive : undefined,
    });
    if (renamed)
      await audit(
        trx,
        actor,
        'chart_entry.rename',
        entry,
        { from: entry.label, to: changes.label },
        changedValues({ label: changes.label }, entry, updated),
      );
    if (toggled)
      await audit(
        trx,
        actor,
        changes.isActive ? 'chart_entry.reactivate' : 'chart_entry.deactivate',
        entry,
        {},
        changedValues({ isActive: changes.isActive }, entry, updated),
      );
    return updated;
  });
}

/** Deletes one of the enterprise's own sub-accounts, while nothing hangs on it (sub-accounts, postings). */
export async function deleteEntry(
  context: ActivityContext,
  actor: Actor,
  chartId: string,
  entryId: string,
): Promise<void> {
  await inTransaction(context.knex, async (trx) => {
    const entry = await lockedEntry(trx, chartId, entryId);
    if (entry.isSystem)
      throw new AppError(
        'conflict',
        'system_account',
        `Account ${entry.code} is a system account: it is never deleted.`,
      );
    if (entry.recordId !== null)
      throw new AppError(
        'conflict',
        'plan_account',
        `Account ${entry.code} belongs to the plan: deactivate it instead.`,
      );
    const child = await trx('company_chart_entries')
      .where({ chart_id: chartId, parent_code: entry.code })
      .first('code');
    if (child !== undefined)
      throw new AppError(
        'conflict',
        'account_has_children',
        `Account ${entry.code} has sub-accounts (${child.code}): delete them first.`,
      );
    if (await entryHasPostings(trx, entry.id))
      throw new AppError(
        'conflict',
        'account_has_postings',
        `Account ${entry.code} has postings: deactivate it instead.`,
      );
    await assertNotUsedByRules(trx, entry.enterpriseId, entry.code, 'delete it');
    await CompanyChartEntry.query(trx).deleteById(entry.id);
    await audit(trx, actor, 'chart_entry.delete', entry, { label: entry.label });
  });
}

async function lockedEntry(trx: Knex.Transaction, chartId: string, entryId: string): Promise<CompanyChartEntry> {
  const entry = await CompanyChartEntry.query(trx).where({ chart_id: chartId, id: entryId }).forUpdate().first();
  if (entry === undefined) throw new NotFoundError('The account');
  return entry;
}

function codeTaken(code: string): AppError {
  return new AppError('conflict', 'account_code_taken', `The chart already has an account ${code}.`);
}

function invalidField(field: string, message: string): AppError {
  return new AppError('validation', 'invalid_request', message, [{ field, message }]);
}

function audit(
  trx: Knex.Transaction,
  actor: Actor,
  action: string,
  entry: CompanyChartEntry,
  details: Record<string, unknown>,
  values?: Pick<AuditEntry, 'before' | 'after'>,
): Promise<void> {
  return recordAudit(trx, actor, {
    action,
    entityType: 'chart_entry',
    entityId: entry.id,
    enterpriseId: entry.enterpriseId,
    details: { code: entry.code, ...details },
    ...values,
  });
}
