import type { Knex } from 'knex';
import { dateIn, effectiveBusinessDate, isValidTimeZone } from '../../domain/calendar';
import { AppError, type FieldError, NotFoundError, ValidationError } from '../../domain/errors';
import { approvalLimitProblems } from '../../domain/loans/approval';
import { ladderProblems, type LadderStep } from '../../domain/provisioning-ladder';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { inTransaction } from '../../db/transaction';
import { changedValues, recordAudit } from '../audit';
import { assertNoOpenTillSession } from '../cash/tills.queries';
import { hasNoChanges } from '../changes';
import { assertDayOpen } from './closed-days';
import type { Actor, DataContext } from '../context';

export type ConfigurationChanges = Partial<
  Pick<
    EnterpriseConfiguration,
    | 'timeZone'
    | 'businessDate'
    | 'shareWithdrawalNoticeDays'
    | 'shareRefundReminderDays'
    | 'approvalStepTimeLimitDays'
    | 'provisioningHour'
    | 'creditCapMode'
    | 'allowSeveralOpenExercices'
    | 'approvalLimits'
    | 'openingSuspenseAccountCode'
    | 'endOfDayHour'
    | 'interBranchService'
    | 'secondRestructuringRule'
  > & { provisioningLadder: LadderStep[] }
>;

/**
 * The same rule in SQL, for reads over rows of several enterprises (`configuration` is the alias of their
 * enterprise_configurations row): the set date, or the date at `now` in the enterprise's time zone.
 */
export function businessDateSql(knex: Knex, configuration: string, now: Date): Knex.Raw {
  return knex.raw('COALESCE(??, (?::timestamptz AT TIME ZONE ??)::date)', [
    `${configuration}.business_date`,
    now.toISOString(),
    `${configuration}.time_zone`,
  ]);
}

/** The business date in force for an enterprise, read in the caller's transaction. */
export async function businessDateOf(trx: Knex | Knex.Transaction, enterpriseId: string, now: Date): Promise<string> {
  const configuration = await EnterpriseConfiguration.query(trx).findOne({ enterprise_id: enterpriseId });
  if (configuration === undefined) throw new NotFoundError('The enterprise');
  return effectiveBusinessDate(configuration, now);
}

/**
 * Changes the parameters. The business date only moves forward (ageing, accruals and postings read it; moving
 * it back would re-date what already happened).
 */
export async function updateConfiguration(
  context: DataContext,
  actor: Actor,
  enterpriseId: string,
  changes: ConfigurationChanges,
): Promise<EnterpriseConfiguration> {
  const problems: FieldError[] = [];
  if (changes.timeZone !== undefined && !isValidTimeZone(changes.timeZone))
    problems.push({ field: 'time_zone', message: 'time_zone must be an IANA time zone, e.g. Africa/Douala' });
  if (changes.provisioningLadder !== undefined) problems.push(...ladderProblems(changes.provisioningLadder));
  if (changes.approvalLimits !== undefined) problems.push(...approvalLimitProblems(changes.approvalLimits));
  if (problems.length > 0) throw new ValidationError(problems);
  return inTransaction(context.knex, async (trx) => {
    const current = await EnterpriseConfiguration.query(trx)
      .findOne({ enterprise_id: enterpriseId })
      .forUpdate()
      .throwIfNotFound();
    if (hasNoChanges(changes)) return current;
    if (changes.businessDate !== undefined) await assertNoOpenTillSession(trx, enterpriseId);
    if (changes.businessDate !== undefined && changes.businessDate !== null) {
      const inForce = effectiveBusinessDate(current, context.clock());
      if (changes.businessDate < inForce) {
        throw new AppError(
          'conflict',
          'business_date_backwards',
          `The business date can only move forward from ${inForce}.`,
        );
      }
    }
    // Issue 29: the date, set or the calendar's, never falls back into a closed day (docs/domain.md §13.3).
    if (changes.businessDate !== undefined)
      await assertDayOpen(
        trx,
        enterpriseId,
        changes.businessDate ?? dateIn(current.timeZone, context.clock()),
        'business_date',
      );
    const updated = await EnterpriseConfiguration.query(trx).patchAndFetchById(current.id, changes);
    await recordAudit(trx, actor, {
      action: 'configuration.update',
      entityType: 'configuration',
      entityId: current.id,
      enterpriseId,
      details: { ...changes },
      ...changedValues(changes, current, updated),
    });
    return updated;
  });
}
