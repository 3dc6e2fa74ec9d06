import type { Knex } from 'knex';
import { amountSql } from './import-sql';
import type { CrossCheck } from './row-checks';

/**
 * The guarantors' holds of the loans file (docs/domain.md §15.2): a guarantee whose row names
 * `guarantee_held_account` holds its value on that account, as a guarantor's guarantee brought in force through the
 * API does (§14.4): the guarantor's own account, in the member-accounts file of the import or an open account of
 * the enterprise, whose balance at the cut-over, less its product's minimum balance and the holds already on it,
 * covers every hold the file puts on it.
 */

const column = 'guarantee_held_account';

/** The account as the member-accounts file gives it (`f`, its product `p`), for the loan row `r` of import `i`. */
const inFile = `import_rows f JOIN savings_products p ON p.enterprise_id = i.enterprise_id
  AND p.code = f.data->>'product_code'
  WHERE f.import_id = r.import_id AND f.kind = 'member-accounts' AND f.data->>'account_number' = r.data->>'${column}'`;

/** The account as the enterprise has it (`c`, its product `p`), open. */
const ofEnterprise = `comptes_clients c JOIN savings_products p ON p.id = c.product_id
  WHERE c.enterprise_id = i.enterprise_id AND c.number = r.data->>'${column}' AND c.status = 'open'`;

/** Every hold the file puts on the row's account: the sum of the guarantees of the loan rows naming it. */
const heldByFile = `(SELECT sum(${amountSql("o.data->>'guarantee_value'")}) FROM import_rows o
  WHERE o.import_id = r.import_id AND o.kind = 'loans' AND o.data->>'${column}' = r.data->>'${column}')`;

export const heldAccountChecks: readonly CrossCheck[] = [
  {
    column,
    problem: 'neither in the member-accounts file nor an open account of the enterprise',
    where: `NOT EXISTS (SELECT 1 FROM ${inFile} UNION ALL SELECT 1 FROM ${ofEnterprise})`,
  },
  {
    column,
    problem: "not the guarantor's own account",
    // A row without a guarantor has its own problem (a held account without a guarantor).
    where: `coalesce(r.data->>'guarantor_member_number', '') <> ''
      AND EXISTS (SELECT 1 FROM ${inFile}
        AND f.data->>'member_number' IS DISTINCT FROM r.data->>'guarantor_member_number'
      UNION ALL SELECT 1 FROM ${ofEnterprise}
        AND NOT EXISTS (SELECT 1 FROM client_profiles m WHERE m.id = c.client_id
          AND m.member_number = r.data->>'guarantor_member_number'))`,
  },
  {
    column,
    problem:
      "its balance at the cut-over, less its product's minimum balance and the holds already on it, " +
      'does not cover the holds of the file on it',
    // An account found nowhere compares as null: the first check reports it.
    where: `${heldByFile} > coalesce((SELECT ${amountSql("f.data->>'balance'")} - p.minimum_balance FROM ${inFile}
      LIMIT 1),
      (SELECT c.balance - p.minimum_balance - coopbank_held_amount(c.id) FROM ${ofEnterprise}))`,
  },
];

/**
 * The ids of the accounts the rows hold, by number: applied after the member accounts, so the file's are the
 * enterprise's by then.
 */
export async function heldAccountIds(
  trx: Knex.Transaction,
  enterpriseId: string,
  rows: readonly { data: Record<string, string> }[],
): Promise<Map<string, string>> {
  const numbers = rows.map((row) => row.data[column] ?? '').filter((number) => number !== '');
  if (numbers.length === 0) return new Map();
  const accounts = (await trx('comptes_clients')
    .where({ enterprise_id: enterpriseId, status: 'open' })
    .whereIn('number', numbers)
    .select('id', 'number')) as { id: string; number: string }[];
  return new Map(accounts.map((account) => [account.number, account.id]));
}
