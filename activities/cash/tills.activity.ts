import type { Knex } from 'knex';
import { nextSubAccountCode } from '../../domain/accounting/banks';
import { tillsParentAccount } from '../../domain/cash/tills';
import { AppError, NotFoundError } from '../../domain/errors';
import { formatAmount, type Money } from '../../domain/money';
import { isUniqueViolation } from '../../db/errors';
import { Till } from '../../db/models/till.model';
import { inTransaction } from '../../db/transaction';
import { addSubAccount } from '../accounts/chart-entries.activity';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { assertBranchOf } from '../accounting/suppliers.activity';

export interface TillInput {
  enterpriseId: string;
  branchId: string;
  code: string;
  label: string;
  cashLimit: Money | null;
  cashierId: string | null;
}

const codeTaken = (code: string) =>
  new AppError('conflict', 'till_code_taken', `The branch already has a till ${code}.`, [
    { field: 'code', message: 'code is taken in the branch' },
  ]);
const cashierTaken = () =>
  new AppError('conflict', 'till_cashier_taken', 'The cashier is already assigned another till: unassign it first.', [
    { field: 'cashier', message: 'cashier has another till' },
  ]);

function conflictOf(error: unknown, code: string): unknown {
  if (isUniqueViolation(error, 'tills_code_unique')) return codeTaken(code);
  if (isUniqueViolation(error, 'tills_one_per_cashier')) return cashierTaken();
  return error;
}

/**
 * The chart's 5712, added under 571 at the enterprise's first till; the 571 row is locked so two first tills add it
 * once.
 */
async function tillsParentChart(trx: Knex.Transaction, actor: Actor, enterpriseId: string): Promise<string> {
  const { code, label, parentCode } = tillsParentAccount;
  const parent = await trx('company_chart_entries')
    .where({ enterprise_id: enterpriseId, code: parentCode })
    .forUpdate()
    .first('chart_id');
  if (parent === undefined)
    throw new AppError('unprocessable', 'account_unknown', `The enterprise's chart has no account ${parentCode}.`);
  const existing = await trx('company_chart_entries').where({ chart_id: parent.chart_id, code }).first('id');
  if (existing === undefined) {
    const [entry] = await trx('company_chart_entries')
      .insert({
        chart_id: parent.chart_id,
        enterprise_id: enterpriseId,
        record_id: null,
        code,
        label,
        class: 5,
        parent_code: parentCode,
        is_system: false,
      })
      .returning('id');
    await recordAudit(trx, actor, {
      action: 'chart_entry.create',
      entityType: 'chart_entry',
      entityId: entry.id,
      enterpriseId,
      details: { parent_code: parentCode, label },
    });
  }
  return parent.chart_id as string;
}

/** The user holds the cashier role in the till's branch (or in the whole enterprise). */
async function assertCashierOf(
  trx: Knex.Transaction,
  till: { enterpriseId: string; branchId: string },
  userId: string,
): Promise<void> {
  const grant = await trx('role_grants')
    .where({ user_id: userId, role: 'cashier', enterprise_id: till.enterpriseId })
    .whereNull('revoked_at')
    .where((branch) => branch.where('branch_id', till.branchId).orWhereNull('branch_id'))
    .first('id');
  if (grant === undefined) {
    throw new AppError('unprocessable', 'till_cashier_refused', "The user is no cashier of the till's branch.", [
      { field: 'cashier', message: 'cashier must hold the cashier role in the branch' },
    ]);
  }
}

/**
 * Opens a till of a branch: its own account, the next free sub-account of 5712 (5712001, 5712002…), in the same
 * transaction; assigned to a cashier of the branch when one is named.
 */
export async function createTill(context: ActivityContext, actor: Actor, input: TillInput): Promise<Till> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      await assertBranchOf(trx, input.enterpriseId, input.branchId);
      if (input.cashierId !== null) await assertCashierOf(trx, input, input.cashierId);
      const chartId = await tillsParentChart(trx, actor, input.enterpriseId);
      const parentCode = tillsParentAccount.code;
      const code = nextSubAccountCode(
        parentCode,
        await trx('company_chart_entries').where({ chart_id: chartId, parent_code: parentCode }).pluck('code'),
      );
      if (code === null) throw new AppError('conflict', 'tills_full', `The 999 tills under ${parentCode} are taken.`);
      await addSubAccount({ ...context, knex: trx }, actor, chartId, {
        parentCode,
        code,
        label: `Caisse ${input.label}`.slice(0, 200),
      });
      const till = await Till.query(trx).insertAndFetch({
        enterpriseId: input.enterpriseId,
        branchId: input.branchId,
        code: input.code,
        label: input.label,
        kind: 'till',
        accountCode: code,
        cashLimit: input.cashLimit === null ? null : formatAmount(input.cashLimit),
        cashierId: input.cashierId,
        isActive: true,
        createdBy: actor.userId,
      });
      await recordAudit(trx, actor, {
        action: 'till.create',
        entityType: 'till',
        entityId: till.id,
        enterpriseId: till.enterpriseId,
        details: {
          branch: till.branchId,
          code: till.code,
          account: code,
          cashier: till.cashierId,
          cash_limit: till.cashLimit,
        },
      });
      return till;
    });
  } catch (error) {
    throw conflictOf(error, input.code);
  }
}

/**
 * The till locked, refused while a session is open on it: the cashier counting it stays the one whose operations post
 * to it.
 */
async function lockedTillWithoutSession(trx: Knex.Transaction, tillId: string): Promise<Till> {
  const till = await Till.query(trx).findById(tillId).forUpdate();
  if (till === undefined) throw new NotFoundError('The till');
  const open = await trx('till_sessions').where({ till_id: tillId, status: 'open' }).first('id');
  if (open !== undefined)
    throw new AppError('conflict', 'till_session_open', 'A session is open on the till: its cashier closes it first.');
  return till;
}

export type TillChange = { assign: string } | { unassign: true } | { deactivate: true };

/**
 * Assigns a till to a cashier of its branch, unassigns it, or deactivates it (its account stays in the chart, and
 * it is unassigned). One till per cashier at a time and one cashier per till; refused while a session is open on it.
 */
export async function changeTill(
  context: ActivityContext,
  actor: Actor,
  tillId: string,
  change: TillChange,
): Promise<Till> {
  try {
    return await inTransaction(context.knex, async (trx) => {
      const till = await lockedTillWithoutSession(trx, tillId);
      if (till.kind === 'vault')
        throw new AppError(
          'conflict',
          'till_is_vault',
          'The vault is no counter: it is neither assigned nor deactivated.',
        );
      if ('assign' in change) {
        if (!till.isActive) throw new AppError('conflict', 'till_inactive', 'The till is deactivated.');
        await assertCashierOf(trx, till, change.assign);
      }
      const patch =
        'assign' in change
          ? { cashierId: change.assign }
          : 'unassign' in change
            ? { cashierId: null }
            : { cashierId: null, isActive: false };
      const updated = await Till.query(trx).patchAndFetchById(till.id, patch);
      const action = 'assign' in change ? 'till.assign' : 'unassign' in change ? 'till.unassign' : 'till.deactivate';
      await recordAudit(trx, actor, {
        action,
        entityType: 'till',
        entityId: till.id,
        enterpriseId: till.enterpriseId,
        before: { cashier_id: till.cashierId, is_active: till.isActive },
        after: { cashier_id: updated.cashierId, is_active: updated.isActive },
      });
      return updated;
    });
  } catch (error) {
    throw conflictOf(error, '');
  }
}
