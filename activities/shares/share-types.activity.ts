import type { Knex } from 'knex';
import { AppError, ValidationError } from '../../domain/errors';
import { Money } from '../../domain/money';
import {
  isShareTypeCode,
  shareTypeCodes,
  shareTypeProblems,
  type ShareTypeCode,
  type ShareTypeTerms,
} from '../../domain/shares/share-type';
import { isUniqueViolation } from '../../db/errors';
import { ShareType } from '../../db/models/share-type.model';
import { inTransaction } from '../../db/transaction';
import fixture from '../../fixtures/share-types.json';
import { changedValues, recordAudit } from '../audit';
import { hasNoChanges } from '../changes';
import type { ActivityContext, Actor, DataContext } from '../context';

export type ShareTypeFields = Pick<
  ShareType,
  | 'name'
  | 'nominalValue'
  | 'minShares'
  | 'maxShares'
  | 'voting'
  | 'withdrawable'
  | 'seniorityYears'
  | 'noticeDays'
  | 'partialPaymentAllowed'
  | 'minimumInitialPaymentRate'
  | 'paymentPeriodMonths'
>;

/** Nominal value and bounds change only while nobody holds a share of the type; the code never changes. */
export type ShareTypeChanges = Partial<ShareTypeFields & { isActive: boolean }>;
const lockedWhileHeld = ['nominalValue', 'minShares', 'maxShares'] as const;

type Defaults = Omit<ShareTypeFields, 'nominalValue' | 'noticeDays'>;

/** The defaults of each code, from fixtures/share-types.json, checked against the legal bounds when loaded. */
function loadDefaults(): Record<ShareTypeCode, Defaults> {
  const types = fixture.types as Record<string, Record<string, unknown>>;
  const defaults = {} as Record<ShareTypeCode, Defaults>;
  for (const code of shareTypeCodes) {
    const row = types[code];
    if (row === undefined) throw new Error(`fixtures/share-types.json: no defaults for type ${code}`);
    defaults[code] = {
      name: row.name as string,
      minShares: row.min_shares as number,
      maxShares: row.max_shares as number,
      voting: row.voting as boolean,
      withdrawable: row.withdrawable as boolean,
      seniorityYears: row.seniority_years as number,
      partialPaymentAllowed: row.partial_payment_allowed as boolean,
      minimumInitialPaymentRate: row.minimum_initial_payment_rate as string,
      paymentPeriodMonths: row.payment_period_months as number,
    };
    const problems = shareTypeProblems(termsOf({ code, nominalValue: '1', ...defaults[code] }));
    if (problems.length > 0) throw new Error(`fixtures/share-types.json: type ${code}: ${problems[0]!.message}`);
  }
  return defaults;
}

const shareTypeDefaults = loadDefaults();

/** The terms the pure rules read, from a stored or proposed type. */
export function termsOf(
  type: Pick<
    ShareType,
    | 'code'
    | 'nominalValue'
    | 'minShares'
    | 'maxShares'
    | 'seniorityYears'
    | 'partialPaymentAllowed'
    | 'minimumInitialPaymentRate'
    | 'paymentPeriodMonths'
  >,
): ShareTypeTerms {
  return {
    code: type.code,
    nominalValue: new Money(type.nominalValue),
    minShares: type.minShares,
    maxShares: type.maxShares,
    seniorityYears: type.seniorityYears,
    partialPaymentAllowed: type.partialPaymentAllowed,
    minimumInitialPaymentRate: new Money(type.minimumInitialPaymentRate),
    paymentPeriodMonths: type.paymentPeriodMonths,
  };
}

function assertSound(type: Parameters<typeof termsOf>[0]): void {
  const problems = shareTypeProblems(termsOf(type));
  if (problems.length > 0) throw new ValidationError(problems);
}

/**
 * Creates one of the enterprise's three share types. The seed allows 001, 002 and 003, once each: any other
 * code, or a code already used, is refused with a 409 naming it. Fields not given take the code's defaults.
 */
export async function createShareType(
  context: ActivityContext,
  actor: Actor,
  enterpriseId: string,
  code: string,
  fields: Partial<ShareTypeFields> & Pick<ShareTypeFields, 'nominalValue'>,
): Promise<ShareType> {
  if (!isShareTypeCode(code)) {
    throw new AppError(
      'conflict',
      'share_type_limit',
      `An enterprise has at most three share types, 001 Founder, 002 Ordinary and 003 Honorary: ` +
        `${code} is not one of them.`,
      [{ field: 'code', message: `code ${code} is not 001, 002 or 003` }],
    );
  }
  const defined = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== undefined));
  const type = { ...shareTypeDefaults[code], noticeDays: null, ...defined, code } as ShareTypeFields & {
    code: ShareTypeCode;
  };
  assertSound(type);
  try {
    return await inTransaction(context.knex, async (trx) => {
      const created = await ShareType.query(trx).insertAndFetch({ enterpriseId, ...type });
      await recordAudit(trx, actor, {
        action: 'share_type.create',
        entityType: 'share_type',
        entityId: created.id,
        enterpriseId,
        details: { ...type },
      });
      return created;
    });
  } catch (error) {
    if (isUniqueViolation(error, 'share_types_code_unique')) {
      throw new AppError('conflict', 'share_type_code_taken', `The enterprise already has a share type ${code}.`, [
        { field: 'code', message: `share type ${code} exists already` },
      ]);
    }
    throw error;
  }
}

/** Shares of the type still held by members (subscribed and not withdrawn). */
async function heldSharesOfType(trx: Knex.Transaction, shareTypeId: string): Promise<number> {
  const row = await trx('share_subscriptions')
    .where({ share_type_id: shareTypeId })
    .first(trx.raw('COALESCE(SUM(shares - withdrawn_shares), 0)::int AS held'));
  return row.held as number;
}

/**
 * Later subscriptions and withdrawals follow the changes; the nominal value and bounds are locked while shares are
 * held.
 */
export async function updateShareType(
  context: DataContext,
  actor: Actor,
  shareTypeId: string,
  changes: ShareTypeChanges,
): Promise<ShareType> {
  return inTransaction(context.knex, async (trx) => {
    // FOR UPDATE: a subscription (FOR SHARE on the type) cannot slip in between the check and the change.
    const type = await ShareType.query(trx).findById(shareTypeId).forUpdate().throwIfNotFound();
    if (hasNoChanges(changes)) return type;
    const defined = Object.fromEntries(
      Object.entries(changes).filter(([, value]) => value !== undefined),
    ) as ShareTypeChanges;
    const locked = lockedWhileHeld.filter(
      (field) => defined[field] !== undefined && String(defined[field]) !== String(type[field]),
    );
    if (locked.length > 0) {
      const held = await heldSharesOfType(trx, type.id);
      if (held > 0)
        throw new AppError(
          'conflict',
          'share_type_in_use',
          `Members hold ${held} share(s) of type ${type.code}: its nominal value and bounds cannot change.`,
        );
    }
    assertSound({ ...type, ...defined });
    const updated = await ShareType.query(trx).patchAndFetchById(type.id, defined);
    await recordAudit(trx, actor, {
      action: 'share_type.update',
      entityType: 'share_type',
      entityId: type.id,
      enterpriseId: type.enterpriseId,
      details: { ...defined },
      ...changedValues(defined, type, updated),
    });
    return updated;
  });
}
