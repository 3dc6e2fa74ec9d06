import type { Knex } from 'knex';
import { postingOperations } from '../../domain/approvals/policy';
import { blockerErrors, type BranchDayBlocker } from '../../domain/cash/branch-day';
import type { IsoDate } from '../../domain/calendar';
import { AppError, NotFoundError } from '../../domain/errors';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { DataContext, Requester } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { unsettledTillSessions, vaultCounted } from './cash-differences.queries';
import { openTillSessions } from './tills.queries';

/**
 * A branch's day (journée d'agence, docs/domain.md §13.3): its head closes it once, when nothing holds it open.
 * The row exists only closed and never changes; the end of day waits for one per active branch.
 */
export interface BranchDayRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  business_date: string;
  closed_by: string;
  closed_at: Date;
}

/** Where the close looks for what holds a day open: a branch, its enterprise and the day. */
export interface BranchDayAt {
  enterpriseId: string;
  branchId: string;
  date: IsoDate;
}

type BranchDayCheck = (trx: Knex.Transaction, day: BranchDayAt) => Promise<BranchDayBlocker | null>;

/** Four-eyes requests of the branch that would post once approved, still pending (domain/cash/branch-day.ts). */
const pendingApprovals: BranchDayCheck = async (trx, day) => {
  const ids: string[] = await trx('approval_requests')
    .where({ enterprise_id: day.enterpriseId, branch_id: day.branchId, status: 'pending' })
    .whereIn('operation', [...postingOperations])
    .orderBy('created_at')
    .pluck('id');
  return ids.length === 0
    ? null
    : {
        reason: 'approvals_pending',
        message: `${ids.length} four-eyes request(s) of the branch await a decision or their expiry`,
        items: ids,
      };
};

/** Till sessions of the branch's day still open (docs/domain.md §13.1): each cashier counts and closes first. */
const openSessions: BranchDayCheck = async (trx, day) => {
  const open = await openTillSessions(trx, day.branchId, day.date);
  return open.length === 0
    ? null
    : {
        reason: 'till_sessions_open',
        message: `${open.length} till session(s) of the branch are still open`,
        items: open.map((session) => session.id),
      };
};

/**
 * Till sessions of the day with a count difference not yet settled (docs/domain.md §13.2): the branch head settles it
 * first.
 */
const unsettledSessions: BranchDayCheck = async (trx, day) => {
  const ids = await unsettledTillSessions(trx, day.branchId, day.date);
  return ids.length === 0
    ? null
    : {
        reason: 'differences_unsettled',
        message: `${ids.length} till session(s) of the day have a count difference not yet settled`,
        items: ids,
      };
};

/**
 * The vault counted on the day (§13.2), in a branch under till control (coopbank_under_till_control): there the vault
 * is apart from the counters, and its count closes the cash of the day. A branch with no till in service has its vault
 * as its counter, counted as the operations go (policy, docs/domain.md §13.3).
 */
const vaultUncounted: BranchDayCheck = async (trx, day) => {
  const { rows } = (await trx.raw('SELECT coopbank_under_till_control(?) AS under', [day.branchId])) as {
    rows: { under: boolean }[];
  };
  if (!rows[0]!.under || (await vaultCounted(trx, day.branchId, day.date))) return null;
  return { reason: 'vault_not_counted', message: 'the vault of the branch is not counted for the day', items: [] };
};

/** Every check a branch's day must pass before it closes, in the order its reasons are listed. */
const branchDayChecks: readonly BranchDayCheck[] = [pendingApprovals, openSessions, unsettledSessions, vaultUncounted];

/** What holds the branch's day open: none when it may close. */
async function branchDayBlockers(trx: Knex.Transaction, day: BranchDayAt): Promise<BranchDayBlocker[]> {
  const blockers: BranchDayBlocker[] = [];
  for (const check of branchDayChecks) {
    const blocker = await check(trx, day);
    if (blocker !== null) blockers.push(blocker);
  }
  return blockers;
}

/**
 * Closes the branch's day: once, at the business date, when no check holds it (409 `branch_day_blocked` listing
 * the reasons). A day already closed is answered as it is (`closed: false`), with nothing changed or audited. The
 * branch row is locked so two heads closing at once queue up and the second finds the first's row.
 */
export async function closeBranchDay(
  context: DataContext,
  actor: Requester,
  day: BranchDayAt,
): Promise<{ day: BranchDayRow; closed: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const branch = await trx('branches')
      .where({ id: day.branchId, enterprise_id: day.enterpriseId })
      .forUpdate()
      .first('id');
    if (branch === undefined) throw new NotFoundError('The branch');
    const existing: BranchDayRow | undefined = await trx('branch_days')
      .where({ branch_id: day.branchId, business_date: day.date })
      .first();
    if (existing !== undefined) return { day: existing, closed: false };
    const businessDate = await businessDateOf(trx, day.enterpriseId, context.clock());
    if (day.date !== businessDate) {
      throw new AppError(
        'unprocessable',
        'branch_day_not_business_date',
        `The branch closes the day of the business date ${businessDate}.`,
        [{ field: 'date', message: `date must be the business date ${businessDate}` }],
      );
    }
    const blockers = await branchDayBlockers(trx, day);
    if (blockers.length > 0)
      throw new AppError(
        'conflict',
        'branch_day_blocked',
        `The day of ${day.date} cannot close yet: ${blockers.map((one) => one.reason).join(', ')}.`,
        blockerErrors(blockers),
      );
    const [row] = await trx('branch_days')
      .insert({
        enterprise_id: day.enterpriseId,
        branch_id: day.branchId,
        business_date: day.date,
        closed_by: actor.userId,
        closed_at: context.clock(),
      })
      .returning('*');
    await recordAudit(trx, actor, {
      action: 'branch_day.close',
      entityType: 'branch_day',
      entityId: row.id,
      enterpriseId: day.enterpriseId,
      details: { branch: day.branchId, date: day.date },
    });
    return { day: row as BranchDayRow, closed: true };
  });
}
