import type { Knex } from 'knex';
import { memberAccountProblems, memberProblems } from '../../domain/imports/member-rules';
import { Money } from '../../domain/money';
import { amountSql, dateSql } from './import-sql';
import type { DetailTotal, ImportKindSteps, ImportScope } from './import-steps';
import { anotherRow, checkAcrossRows, checkEachRow, twiceInFile, type CrossCheck } from './row-checks';

/** The members and member-accounts kinds' steps (docs/domain.md §15). */

const memberChecks: readonly CrossCheck[] = [
  twiceInFile('member_number'),
  {
    column: 'id_document_number',
    problem: 'the same identity document as another row of the file',
    where: anotherRow(`o.data->>'id_document_type' = r.data->>'id_document_type'
      AND upper(replace(o.data->>'id_document_number', ' ', '')) = upper(replace(r.data->>'id_document_number',
        ' ', ''))`),
  },
  {
    column: 'member_number',
    problem: 'already a member of the enterprise',
    where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
      AND c.member_number = r.data->>'member_number')`,
  },
  {
    column: 'id_document_number',
    problem: 'the identity document of a member of the enterprise',
    where: `EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
      AND c.id_document_type = r.data->>'id_document_type'
        AND c.id_document_number = upper(replace(r.data->>'id_document_number', ' ', '')))`,
  },
];

const memberAccountChecks: readonly CrossCheck[] = [
  twiceInFile('account_number'),
  {
    column: 'account_number',
    problem: 'already an account of the enterprise',
    where: `EXISTS (SELECT 1 FROM comptes_clients a WHERE a.enterprise_id = i.enterprise_id
      AND a.number = r.data->>'account_number')`,
  },
  {
    column: 'member_number',
    problem: 'neither in the members file nor a member of the enterprise',
    where: `r.data->>'member_number' <> ''
      AND NOT EXISTS (SELECT 1 FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members'
        AND m.data->>'member_number' = r.data->>'member_number')
      AND NOT EXISTS (SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
        AND c.member_number = r.data->>'member_number')`,
  },
];

export const memberSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    // The enterprise's branches and those its branches-users file brings (applied before the members).
    const branchCodes = new Set([
      ...((await trx('branches').where({ enterprise_id: scope.enterpriseId }).pluck('code')) as string[]),
      ...(
        await trx.raw(
          `SELECT DISTINCT data->>'branch_code' AS code FROM import_rows WHERE import_id = ?
            AND kind = 'branches-users'`,
          [scope.importId],
        )
      ).rows.map((row: { code: string }) => row.code),
    ]);
    await checkEachRow(trx, scope, 'members', (data) => [
      ...(branchCodes.has(data.branch_code!)
        ? []
        : [{ column: 'branch_code', value: data.branch_code!, problem: 'not a branch of the enterprise' }]),
      ...memberProblems(data, scope.cutOverDate),
    ]);
    await checkAcrossRows(trx, scope, 'members', memberChecks);
  },
  applyBatch: (trx, _context, scope, afterRow, limit) =>
    insertBatch(
      trx,
      scope,
      'members',
      afterRow,
      limit,
      `INSERT INTO client_profiles (enterprise_id, branch_id, member_number, kind,
      first_name, last_name, legal_name, id_document_type, id_document_number, birth_date, gender, phone, address,
        membership_date, created_by, import_id)
    SELECT i.enterprise_id, b.id, d->>'member_number', d->>'kind', d->>'first_name', d->>'last_name', d->>'legal_name',
      d->>'id_document_type',
      upper(replace(d->>'id_document_number', ' ', '')), ${dateSql("d->>'birth_date'")}, nullif(d->>'gender', ''),
        d->>'phone', d->>'address',
      ${dateSql("d->>'membership_date'")}, i.applied_by, i.id
    FROM batch JOIN imports i ON i.id = batch.import_id JOIN branches b ON b.enterprise_id = i.enterprise_id
      AND b.code = d->>'branch_code'`,
    ),
  // Left, with the reason (a member has no other end); the number and document freed with a suffix, so that the
  // corrected files come in again.
  cancel: async (trx, scope) => {
    await trx('client_profiles')
      .where({ import_id: scope.importId })
      .update({
        status: 'left',
        status_reason: 'Import cancelled',
        member_number: trx.raw("left(member_number, 20) || '~' || left(id::text, 8)"),
        // The identity document's number too: it is unique in the enterprise, and its characters are letters, digits, /
        // . -
        id_document_number: trx.raw("left(id_document_number, 40) || '-X' || upper(left(id::text, 8))"),
      });
  },
};

export const memberAccountSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const productKinds = new Map(
      (
        (await trx('savings_products').where({ enterprise_id: scope.enterpriseId }).select('code', 'kind')) as {
          code: string;
          kind: string;
        }[]
      ).map((row) => [row.code, row.kind]),
    );
    await checkEachRow(trx, scope, 'member-accounts', (data) => {
      const productKind = productKinds.get(data.product_code ?? '');
      return [
        ...(productKind === undefined
          ? [{ column: 'product_code', value: data.product_code!, problem: 'not a savings product of the enterprise' }]
          : []),
        ...memberAccountProblems(data, scope.cutOverDate, productKind),
      ];
    });
    await checkAcrossRows(trx, scope, 'member-accounts', memberAccountChecks);
  },
  detailTotals: memberDepositTotals,
  // The balance at the cut-over, kept as the opening balance the statement starts from; a term deposit's maturity and
  // contract rate as given.
  applyBatch: (trx, _context, scope, afterRow, limit) =>
    insertBatch(
      trx,
      scope,
      'member-accounts',
      afterRow,
      limit,
      `INSERT INTO comptes_clients (enterprise_id, branch_id, client_id, product_id,
      number, balance, opening_balance, opened_on, maturity_date, contract_rate, opened_by, import_id)
    SELECT i.enterprise_id, c.branch_id, c.id, p.id, d->>'account_number', ${amountSql("d->>'balance'")},
      ${amountSql("d->>'balance'")}, ${dateSql("d->>'opened_on'")},
      ${dateSql("d->>'maturity_date'")}, NULLIF(d->>'interest_rate', '')::numeric, i.applied_by, i.id
    FROM batch JOIN imports i ON i.id = batch.import_id JOIN client_profiles c ON c.enterprise_id = i.enterprise_id
      AND c.member_number = d->>'member_number'
    JOIN savings_products p ON p.enterprise_id = i.enterprise_id AND p.code = d->>'product_code'`,
    ),
  // Closed at zero (the opening entry's reversal takes their balances out of the books), the number freed as a member's
  // is.
  cancel: async (trx, scope) => {
    await trx('comptes_clients')
      .where({ import_id: scope.importId })
      .update({
        status: 'closed',
        balance: 0,
        closed_on: trx.raw('?::date', [scope.cutOverDate]),
        number: trx.raw("left(number, 30) || '~' || left(id::text, 8)"),
      });
  },
};

/**
 * Inserts what the rows of a batch describe with one `INSERT … SELECT` over \`batch\` (import_id, row_number, d: the
 * row's cells), the rows of the kind after \`afterRow\`; answers the batch's last row, null when none was left.
 */
async function insertBatch(
  trx: Knex.Transaction,
  scope: ImportScope,
  kind: 'members' | 'member-accounts',
  afterRow: number,
  limit: number,
  insert: string,
): Promise<number | null> {
  const last = (await trx('import_rows')
    .where({ import_id: scope.importId, kind })
    .where('row_number', '>', afterRow)
    .orderBy('row_number')
    .offset(limit - 1)
    .first('row_number')) as { row_number: number } | undefined;
  const upTo = last?.row_number ?? null;
  await trx.raw(
    `WITH batch AS (SELECT r.import_id, r.row_number, r.data AS d FROM import_rows r
      WHERE r.import_id = ? AND r.kind = ? AND r.row_number > ? AND (?::int IS NULL OR r.row_number <= ?))
    ${insert}`,
    [scope.importId, kind, afterRow, upTo, upTo],
  );
  if (upTo !== null) return upTo;
  const { max } = (await trx('import_rows')
    .where({ import_id: scope.importId, kind })
    .where('row_number', '>', afterRow)
    .max({ max: 'row_number' })
    .first()) as { max: number | null };
  return max;
}

/**
 * The member deposits by branch and chart account: each account's balance (a credit) on its product's deposit
 * account, the account counted in its member's branch (the members file's, else the existing member's). One query.
 */
async function memberDepositTotals(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]> {
  const rows = await trx.raw(
    `SELECT coalesce(m.data->>'branch_code', b.code) AS branch_code, p.deposit_account_code AS account_code,
      p.code AS product,
      sum(${amountSql("r.data->>'balance'")})::text AS balance
    FROM import_rows r JOIN imports i ON i.id = r.import_id
    JOIN savings_products p ON p.enterprise_id = i.enterprise_id AND p.code = r.data->>'product_code'
    LEFT JOIN import_rows m ON m.import_id = r.import_id AND m.kind = 'members'
      AND m.data->>'member_number' = r.data->>'member_number'
    LEFT JOIN client_profiles c ON m.row_number IS NULL AND c.enterprise_id = i.enterprise_id
      AND c.member_number = r.data->>'member_number'
    LEFT JOIN branches b ON b.id = c.branch_id
    WHERE r.import_id = ? AND r.kind = 'member-accounts' GROUP BY 1, 2, 3 ORDER BY 1, 2, 3`,
    [scope.importId],
  );
  return (rows.rows as { branch_code: string; account_code: string; product: string; balance: string }[]).map(
    (row) => ({
      branchCode: row.branch_code,
      accountCode: row.account_code,
      balance: new Money(row.balance).negated(),
      what: `member deposits, product ${row.product}`,
    }),
  );
}
