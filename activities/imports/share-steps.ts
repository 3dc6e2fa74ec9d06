import type { Knex } from 'knex';
import { amountOf, shareProblems, subscriptionBalances, type PostingRule } from '../../domain/imports/share-rules';
import { formatAmount, Money } from '../../domain/money';
import { paymentDueOn } from '../../domain/shares/subscription';
import { ShareType } from '../../db/models/share-type.model';
import { nextSequenceValue } from '../../db/sequences';
import { defaultRoleAccounts } from '../events/default-rules';
import { currentRule } from '../events/record-business-event';
import { termsOf } from '../shares/share-types.activity';
import type { DetailTotal, ImportKindSteps, ImportScope } from './import-steps';
import { anotherRow, checkAcrossRows, checkEachRow, type CrossCheck } from './row-checks';

/**
 * The shares kind's steps (docs/domain.md §15, Share capital and branches): one row per member and share type,
 * the shares and what was paid on them. Applying creates the subscriptions at the cut-over with what was paid
 * before it (`opening_paid`) and posts nothing: the opening entries carry the capital accounts.
 */

/** The rows' member: in the import's members file, or a member of the enterprise (by number). */
const fileMember = `EXISTS (SELECT 1 FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members'
  AND m.data->>'member_number' = r.data->>'member_number')`;
const enterpriseMember = (extra = '') =>
  `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
    AND c.member_number = r.data->>'member_number'${extra})`;
const sameHolding = `o.import_id = r.import_id AND o.kind = r.kind
  AND o.data->>'member_number' = r.data->>'member_number' AND o.data->>'share_type_code' = r.data->>'share_type_code'`;
const wholeShares = (alias: string) => `${alias}.data->>'shares' ~ '^[0-9]{1,9}$'`;
/** A row whose shares read as a whole number above zero: the bounds judge it (zero shares is the row's own problem). */
const someShares = `${wholeShares('r')} AND r.data->>'shares' !~ '^0+$'`;
/** The member's shares of the row's type: held already (not withdrawn, not cancelled) and in the file. */
const holding = `(SELECT coalesce(sum(s.shares - s.withdrawn_shares), 0) FROM share_subscriptions s
  JOIN client_profiles c ON c.id = s.client_id JOIN share_types t ON t.id = s.share_type_id
    WHERE c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number'
      AND t.code = r.data->>'share_type_code')
  + (SELECT sum((o.data->>'shares')::bigint) FROM import_rows o WHERE ${sameHolding} AND ${wholeShares('o')})`;
const typeBound = (bound: 'min_shares' | 'max_shares') =>
  `(SELECT t.${bound} FROM share_types t WHERE t.enterprise_id = i.enterprise_id
    AND t.code = r.data->>'share_type_code')`;

const shareChecks: readonly CrossCheck[] = [
  {
    column: 'share_type_code',
    problem: "the member's shares of this type twice in the file (one row per member and type)",
    where: anotherRow(
      `o.data->>'member_number' = r.data->>'member_number' AND o.data->>'share_type_code' = r.data->>'share_type_code'`,
    ),
  },
  {
    column: 'member_number',
    problem: 'neither in the members file nor a member of the enterprise',
    where: `NOT ${fileMember} AND NOT ${enterpriseMember()}`,
  },
  {
    column: 'share_type_code',
    problem: 'founder shares: the member is not named a founder by direction',
    where: `r.data->>'share_type_code' = '001' AND ${enterpriseMember(' AND NOT c.founder')}`,
  },
  {
    column: 'shares',
    problem: "with the shares of this type the member holds already, above the type's maximum per member",
    where: `${someShares} AND ${holding} > ${typeBound('max_shares')}`,
  },
  {
    column: 'shares',
    problem: "with the shares of this type the member holds already, below the type's minimum per member",
    where: `${someShares} AND ${holding} < ${typeBound('min_shares')}`,
  },
];

/**
 * A validated row with what its member and type say: the member's branch and client (once members are applied), the
 * type.
 */
interface HoldingRow {
  row_number: number;
  data: Record<string, string>;
  branch_code: string;
  client_id: string | null;
  branch_id: string | null;
  share_type_id: string;
  nominal_value: string;
}

/** Validated rows after `afterRow`, by row number, with their member's branch and their type. */
async function holdingRows(
  trx: Knex.Transaction,
  scope: ImportScope,
  afterRow: number,
  limit: number,
): Promise<HoldingRow[]> {
  const result = await trx.raw<{ rows: HoldingRow[] }>(
    `SELECT r.row_number, r.data, coalesce(m.data->>'branch_code', b.code) AS branch_code, c.id AS client_id,
      c.branch_id, t.id AS share_type_id, t.nominal_value
       FROM import_rows r JOIN share_types t ON t.enterprise_id = ? AND t.code = r.data->>'share_type_code'
       LEFT JOIN import_rows m ON m.import_id = r.import_id AND m.kind = 'members'
         AND m.data->>'member_number' = r.data->>'member_number'
       LEFT JOIN client_profiles c ON c.enterprise_id = t.enterprise_id AND c.member_number = r.data->>'member_number'
       LEFT JOIN branches b ON b.id = c.branch_id
      WHERE r.import_id = ? AND r.kind = 'shares' AND r.row_number > ? ORDER BY r.row_number LIMIT ?`,
    [scope.enterpriseId, scope.importId, afterRow, limit],
  );
  return result.rows;
}

const batchRows = 1000;

/** The enterprise's rules of a subscription and a payment, as they stand. */
async function shareRules(
  trx: Knex.Transaction,
  enterpriseId: string,
): Promise<{ subscription: PostingRule; payment: PostingRule }> {
  const rule = async (kind: 'share_subscription' | 'share_payment'): Promise<PostingRule> => {
    const found = await currentRule(trx, enterpriseId, kind);
    return found === undefined ? { legs: [], active: false } : { legs: found.legs, active: found.is_active };
  };
  return { subscription: await rule('share_subscription'), payment: await rule('share_payment') };
}

/** What the file's subscriptions add up to per branch: subscribed (shares × nominal value) and paid. */
async function branchTotals(
  trx: Knex.Transaction,
  scope: ImportScope,
): Promise<Map<string, { subscribed: Money; paid: Money }>> {
  const totals = new Map<string, { subscribed: Money; paid: Money }>();
  for (
    let rows = await holdingRows(trx, scope, 0, batchRows);
    rows.length > 0;
    rows = await holdingRows(trx, scope, rows.at(-1)!.row_number, batchRows)
  ) {
    for (const row of rows) {
      const total = totals.get(row.branch_code) ?? { subscribed: new Money(0), paid: new Money(0) };
      totals.set(row.branch_code, {
        subscribed: total.subscribed.plus(new Money(row.nominal_value).times(row.data.shares!)),
        paid: total.paid.plus(amountOf(row.data, 'amount_paid')!),
      });
    }
  }
  return totals;
}

export const shareSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const types = new Map(
      (await ShareType.query(trx).where('enterprise_id', scope.enterpriseId)).map((type) => [
        type.code as string,
        termsOf(type),
      ]),
    );
    await checkEachRow(trx, scope, 'shares', (data) => {
      const terms = types.get(data.share_type_code ?? '');
      return [
        ...(terms === undefined
          ? [{ column: 'share_type_code', value: data.share_type_code!, problem: 'not a share type of the enterprise' }]
          : []),
        ...shareProblems(data, terms),
      ];
    });
    await checkAcrossRows(trx, scope, 'shares', shareChecks);
  },

  /**
   * Per branch, every account the subscriptions would have moved had Coopbank posted them (paid and unpaid capital,
   * what members owe).
   */
  async detailTotals(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]> {
    const rules = await shareRules(trx, scope.enterpriseId);
    const totals: DetailTotal[] = [];
    for (const [branchCode, total] of await branchTotals(trx, scope)) {
      for (const [accountCode, balance] of subscriptionBalances(
        rules,
        total.subscribed,
        total.paid,
        defaultRoleAccounts,
      )) {
        totals.push({ branchCode, accountCode, balance, what: 'share subscriptions' });
      }
    }
    return totals;
  },

  async applyBatch(trx, _context, scope, afterRow, limit) {
    const rows = await holdingRows(trx, scope, afterRow, limit);
    if (rows.length === 0) return null;
    const { uploaded_by: subscribedBy } = (await trx('imports').where({ id: scope.importId }).first('uploaded_by')) as {
      uploaded_by: string;
    };
    const types = new Map(
      (await ShareType.query(trx).where('enterprise_id', scope.enterpriseId)).map((type) => [type.id, type]),
    );
    const year = Number(scope.cutOverDate.slice(0, 4));
    const subscriptions = [];
    for (const row of rows) {
      const type = types.get(row.share_type_id)!;
      const amount = new Money(type.nominalValue).times(row.data.shares!);
      const paid = formatAmount(amountOf(row.data, 'amount_paid')!);
      // The old register holding founder shares is what names a member of the file a founder (validation refused any
      // other).
      if (type.code === '001') await trx('client_profiles').where({ id: row.client_id! }).update({ founder: true });
      const sequence = await nextSequenceValue(trx, {
        name: 'share_subscription',
        enterpriseId: scope.enterpriseId,
        year,
      });
      subscriptions.push({
        enterprise_id: scope.enterpriseId,
        branch_id: row.branch_id!,
        client_id: row.client_id!,
        share_type_id: type.id,
        number: `SUB-${year}-${String(sequence).padStart(6, '0')}`,
        shares: Number(row.data.shares),
        nominal_value: type.nominalValue,
        amount: formatAmount(amount),
        subscribed_on: scope.cutOverDate,
        payment_due_on: paymentDueOn(scope.cutOverDate, termsOf(type)),
        paid_amount: paid,
        opening_paid: paid,
        subscribed_by: subscribedBy,
        idempotency_key: `import:${scope.importId}:${row.row_number}`,
        request: JSON.stringify({ import: scope.importId, row: row.row_number }),
        import_id: scope.importId,
        import_row_number: row.row_number,
      });
    }
    await trx('share_subscriptions').insert(subscriptions);
    return rows.at(-1)!.row_number;
  },

  /**
   * Each subscription cancelled whole: its shares count as withdrawn, so no holding, capital or bound reads them; the
   * number stays.
   */
  async cancel(trx: Knex.Transaction, scope: ImportScope) {
    await trx('share_subscriptions')
      .where({ import_id: scope.importId })
      .whereNull('cancelled_at')
      .update({
        cancelled_at: trx.fn.now(),
        withdrawn_shares: trx.raw('shares'),
        withdrawn_paid: trx.raw('paid_amount'),
        withdrawn_unpaid: trx.raw('amount - paid_amount'),
      });
  },
};
