import type { Knex } from 'knex';
import { registerOf, type Register } from '../../domain/accounting/fixed-asset-register';
import type { IsoDate } from '../../domain/calendar';
import { Money } from '../../domain/money';

/**
 * The register at a date (docs/domain.md §12.4): the assets in the books that day, acquired by then and not yet
 * disposed of, with the depreciation whose entries are dated by then, in the branches of the scope. Read by the
 * route and by the month's reporting pack.
 */
export async function fixedAssetRegisterAt(
  knex: Knex,
  scope: { enterpriseId: string; branches: 'all' | readonly string[] },
  date: IsoDate,
): Promise<Register> {
  const rows = knex('fixed_assets as a')
    .join('fixed_asset_categories as c', 'c.id', 'a.category_id')
    .join('branches as b', 'b.id', 'a.branch_id')
    .where('a.enterprise_id', scope.enterpriseId)
    .where('a.acquisition_date', '<=', date)
    .where((where) => where.whereNull('a.disposal_date').orWhere('a.disposal_date', '>', date))
    .orderBy([{ column: 'a.acquisition_date' }, { column: 'a.id' }])
    .select(
      'a.id',
      'a.label',
      'c.name as category',
      'b.code as branch',
      knex.raw(`to_char(a.acquisition_date, 'YYYY-MM-DD') AS acquisition_date`),
      'a.cost',
      knex.raw(
        `(SELECT COALESCE(sum(d.amount), 0)::text FROM fixed_asset_depreciations d JOIN journal_entries e
          ON e.id = d.entry_id
         WHERE d.asset_id = a.id AND e.entry_date <= ?) AS accumulated`,
        [date],
      ),
    );
  if (scope.branches !== 'all') rows.whereIn('a.branch_id', scope.branches);
  type Row = {
    id: string;
    label: string;
    category: string;
    branch: string;
    acquisition_date: string;
    cost: string;
    accumulated: string;
  };
  const found = (await rows) as Row[];
  return registerOf(
    found.map((row) => ({
      asset: row.id,
      label: row.label,
      category: row.category,
      branch: row.branch,
      acquisitionDate: row.acquisition_date,
      cost: new Money(row.cost),
      accumulated: new Money(row.accumulated),
    })),
  );
}
