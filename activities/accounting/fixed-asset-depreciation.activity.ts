import type { Knex } from 'knex';
import { depreciatedThrough, type DepreciableAsset } from '../../domain/accounting/depreciation';
import { accrualPostings, type Accrual } from '../../domain/accruals';
import type { IsoDate } from '../../domain/calendar';
import type { MonthEndStepResult } from '../../domain/enterprise/month-end-step';
import { formatAmount, Money } from '../../domain/money';
import type { MonthEndStepWork } from '../enterprise/month-end.activity';
import type { EntryDraft } from '../events/post-entry';

/**
 * Depreciation booked (docs/domain.md §12.4): what an asset's straight-line schedule has reached by a date, less
 * what is booked already, one entry per branch and pair of accounts (68x / 28x, journal OD), the per-asset detail in
 * fixed_asset_depreciations. Booking the difference makes it idempotent: a month end run again, or one that missed a
 * month (an asset recorded late), books only what is missing, and never twice for one asset and date (a unique key).
 */

export interface DepreciableRow {
  id: string;
  enterprise_id: string;
  branch_id: string;
  cost: string;
  depreciation_months: number;
  acquisition_date: string;
  depreciated: string;
  charge_account_code: string;
  depreciation_account_code: string;
}

/**
 * The active assets of the enterprise (or the one asset) acquired by `through`, locked, with what is booked on each.
 */
export async function depreciableAssets(
  trx: Knex.Transaction,
  filter: { enterpriseId: string } | { assetId: string },
  through: IsoDate,
): Promise<DepreciableRow[]> {
  const [column, value] = 'assetId' in filter ? ['a.id', filter.assetId] : ['a.enterprise_id', filter.enterpriseId];
  const result = await trx.raw<{ rows: DepreciableRow[] }>(
    `SELECT a.id, a.enterprise_id, a.branch_id, a.cost::text, a.depreciation_months,
      to_char(a.acquisition_date, 'YYYY-MM-DD') AS acquisition_date,
            (SELECT COALESCE(sum(d.amount), 0)::text FROM fixed_asset_depreciations d
              WHERE d.asset_id = a.id) AS depreciated,
            c.charge_account_code, c.depreciation_account_code
       FROM fixed_assets a JOIN fixed_asset_categories c ON c.id = a.category_id
      WHERE ${column} = ? AND a.status = 'active' AND a.acquisition_date <= ?
      ORDER BY a.id
        FOR UPDATE OF a`,
    [value, through],
  );
  return result.rows;
}

const depreciableAsset = (row: DepreciableRow): DepreciableAsset => ({
  cost: new Money(row.cost),
  months: row.depreciation_months,
  acquisitionDate: row.acquisition_date,
});

type Post = (draft: Omit<EntryDraft, 'enterpriseId' | 'createdBy'>) => Promise<string>;

/**
 * Books each asset's depreciation due through `through` (its schedule's figure less what is booked), the entries
 * dated `entryDate`: one per branch and pair of accounts. Answers what each asset got.
 */
export async function bookDepreciation(
  trx: Knex.Transaction,
  post: Post,
  rows: readonly DepreciableRow[],
  dates: { through: IsoDate; entryDate: IsoDate },
): Promise<{ entries: number; charges: Accrual[] }> {
  const enterpriseOf = new Map(rows.map((row) => [row.id, row.enterprise_id]));
  const charges = rows
    .map((row) => ({
      subjectId: row.id,
      branchId: row.branch_id,
      amount: depreciatedThrough(depreciableAsset(row), dates.through).minus(row.depreciated),
      debitAccount: row.charge_account_code,
      creditAccount: row.depreciation_account_code,
    }))
    .filter((charge) => charge.amount.gt(0));
  const postings = accrualPostings(charges, 'accrue');
  for (const posting of postings) {
    const entryId = await post({
      branchId: posting.branchId,
      entryDate: dates.entryDate,
      lines: posting.lines,
      journal: 'OD',
      description: `Dotations aux amortissements au ${dates.through}`,
    });
    await trx('fixed_asset_depreciations').insert(
      posting.accruals.map((charge) => ({
        enterprise_id: enterpriseOf.get(charge.subjectId),
        asset_id: charge.subjectId,
        through_date: dates.through,
        amount: formatAmount(charge.amount),
        entry_id: entryId,
      })),
    );
  }
  return { entries: postings.length, charges };
}

/** Month-end step: every active asset depreciated through the period's last day, the entries dated that day. */
export async function depreciateFixedAssets(
  trx: Knex.Transaction,
  { run, post }: MonthEndStepWork,
): Promise<MonthEndStepResult> {
  const rows = await depreciableAssets(trx, { enterpriseId: run.enterprise_id }, run.period_end);
  const { entries, charges } = await bookDepreciation(trx, post, rows, {
    through: run.period_end,
    entryDate: run.period_end,
  });
  return {
    entries,
    amount: formatAmount(charges.reduce((sum, charge) => sum.plus(charge.amount), new Money(0))),
    lines: charges.map((charge) => ({ account: charge.debitAccount, amount: formatAmount(charge.amount) })),
  };
}
