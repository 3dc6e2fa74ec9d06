import type { Knex } from 'knex';
import { memberAccountProblems, memberProblems } from '../../domain/imports/member-rules';
import { Money } from '../../domain/money';
import { amountSql } from './import-sql';
import type { DetailTotal, ImportKindSteps, ImportScope } from './import-steps';
import { checkAcrossRows, checkEachRow, twiceInFile, type CrossCheck } from './row-checks';

/** The members and member-accounts kinds' steps (docs/domain.md §15). */

const memberChecks: readonly CrossCheck[] = [
  twiceInFile('member_number'),
  { column: 'id_document_number', problem: 'the same identity document as another row of the file', where: `(SELECT count(*) FROM import_rows o WHERE o.import_id = r.import_id AND o.kind = r.kind
      AND o.data->>'id_document_type' = r.data->>'id_document_type' AND upper(replace(o.data->>'id_document_number', ' ', '')) = upper(replace(r.data->>'id_document_number', ' ', ''))) > 1` },
  { column: 'member_number', problem: 'already a member of the enterprise', where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number')` },
  { column: 'id_document_number', problem: 'the identity document of a member of the enterprise', where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
      AND c.id_document_type = r.data->>'id_document_type' AND c.id_document_number = upper(replace(r.data->>'id_document_number', ' ', '')))` },
];

const memberAccountChecks: readonly CrossCheck[] = [
  twiceInFile('account_number'),
  { column: 'account_number', problem: 'already an account of the enterprise', where: `EXISTS (SELECT 1 FROM comptes_clients a WHERE a.enterprise_id = i.enterprise_id AND a.number = r.data->>'account_number')` },
  { column: 'member_number', problem: 'neither in the members file nor a member of the enterprise', where: `r.data->>'member_number' <> ''
      AND NOT EXISTS (SELECT 1 FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members' AND m.data->>'member_number' = r.data->>'member_number')
      AND NOT EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number')` },
];

export const memberSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const branchCodes = new Set(await trx('branches').where({ enterprise_id: scope.enterpriseId }).pluck('code') as string[]);
    await checkEachRow(trx, scope, 'members', (data) => [
      ...(branchCodes.has(data.branch_code!) ? [] : [{ column: 'branch_code', value: data.branch_code!, problem: 'not a branch of the enterprise' }]),
      ...memberProblems(data, scope.cutOverDate),
    ]);
    await checkAcrossRows(trx, scope, 'members', memberChecks);
  },
};

export const memberAccountSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const productKinds = new Map((await trx('savings_products').where({ enterprise_id: scope.enterpriseId }).select('code', 'kind') as { code: string; kind: string }[])
      .map((row) => [row.code, row.kind]));
    await checkEachRow(trx, scope, 'member-accounts', (data) => {
      const productKind = productKinds.get(data.product_code ?? '');
      return [
        ...(productKind === undefined ? [{ column: 'product_code', value: data.product_code!, problem: 'not a savings product of the enterprise' }] : []),
        ...memberAccountProblems(data, scope.cutOverDate, productKind),
      ];
    });
    await checkAcrossRows(trx, scope, 'member-accounts', memberAccountChecks);
  },
  detailTotals: memberDepositTotals,
};

/**
 * The member deposits by branch and chart account: each account's balance (a credit) on its product's deposit
 * account, the account counted in its member's branch (the members file's, else the existing member's). One query.
 */
async function memberDepositTotals(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]> {
  const rows = await trx.raw(`SELECT coalesce(m.data->>'branch_code', b.code) AS branch_code, p.deposit_account_code AS account_code, p.code AS product,
      sum(${amountSql('r.data->>\'balance\'')})::text AS balance
    FROM import_rows r JOIN imports i ON i.id = r.import_id
    JOIN savings_products p ON p.enterprise_id = i.enterprise_id AND p.code = r.data->>'product_code'
    LEFT JOIN import_rows m ON m.import_id = r.import_id AND m.kind = 'members' AND m.data->>'member_number' = r.data->>'member_number'
    LEFT JOIN client_profiles c ON m.row_number IS NULL AND c.enterprise_id = i.enterprise_id AND c.member_number = r.data->>'member_number'
    LEFT JOIN branches b ON b.id = c.branch_id
    WHERE r.import_id = ? AND r.kind = 'member-accounts' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`, [scope.importId]);
  return (rows.rows as { branch_code: string; account_code: string; product: string; balance: string }[]).map((row) => ({
    branchCode: row.branch_code, accountCode: row.account_code, balance: new Money(row.balance).negated(), what: `member deposits, product ${row.product}`,
  }));
}
