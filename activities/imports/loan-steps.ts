import type { Knex } from 'knex';
import { parseImportDate } from '../../domain/imports/cells';
import {
  amountOf,
  borrowerProblems,
  daysPastDueOf,
  fileClassOf,
  installmentProblems,
  loanDetailParts,
  loanProblems,
  outstandingOf,
  type ImportedInstallment,
} from '../../domain/imports/loan-rules';
import { loanSchedule, type ScheduleTerms } from '../../domain/imports/regenerated-schedule';
import {
  doubtfulAccountOf,
  notDoubtfulProvisionAccount,
  provisionAccountOf,
} from '../../domain/loans/doubtful-accounts';
import { yearsSince } from '../../domain/loans/provisioning';
import { formatAmount, Money } from '../../domain/money';
import type { DataContext } from '../context';
import { classAccounts } from '../loans/class-accounts';
import { accrualAccountsOf, accrualLegOf, type AccrualProductAccounts } from '../loans/interest-accrual.activity';
import { recordOriginalVersions } from '../loans/schedule-versions';
import { heldAccountChecks, heldAccountIds } from './held-accounts';
import type { DetailTotal, ImportKindSteps, ImportScope } from './import-steps';
import { checkAcrossRows, checkEachRow, twiceInFile, type CrossCheck } from './row-checks';
import { insertRows } from '../../db/insert-rows';

/**
 * The loans in progress and their installments (docs/domain.md §15.2): validated against the enterprise's loan
 * products and members, each loan against its schedule and its borrower's class; their detail totals for the
 * tie-out; applied as active loans of the import (no approval circuit), posting nothing.
 */

type Row = Record<string, string>;

interface ProductRow extends AccrualProductAccounts {
  id: string;
  code: string;
  method: string;
  frequency: string;
  penalty_rate: string;
  portfolio_account_code: string;
  min_term_periods: number;
  max_term_periods: number;
  real_estate: boolean;
}

/** The product's method and frequency, which regenerate a schedule the file leaves out. */
const termsOf = (product: ProductRow): ScheduleTerms => ({
  method: product.method as ScheduleTerms['method'],
  frequency: product.frequency as ScheduleTerms['frequency'],
});

const productsOf = async (trx: Knex.Transaction, enterpriseId: string): Promise<Map<string, ProductRow>> =>
  new Map(
    (
      (await trx('loan_products')
        .where({ enterprise_id: enterpriseId })
        .select(
          'id',
          'code',
          'method',
          'frequency',
          'penalty_rate',
          'portfolio_account_code',
          'min_term_periods',
          'max_term_periods',
          'real_estate',
          'interest_income_account_code',
          'accrued_interest_account_code',
        )) as ProductRow[]
    ).map((product) => [product.code, product]),
  );

/**
 * A member the import knows: a row of its members file, or a member of the enterprise (one of another enterprise is
 * neither).
 */
const knownMember = (column: string): CrossCheck => ({
  column,
  problem: 'neither in the members file nor a member of the enterprise',
  where: `NOT EXISTS (SELECT 1 FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members'
    AND m.data->>'member_number' = r.data->>'${column}'
      UNION ALL SELECT 1 FROM client_profiles c WHERE c.enterprise_id = i.enterprise_id
        AND c.member_number = r.data->>'${column}')`,
});

const loanChecks: readonly CrossCheck[] = [
  twiceInFile('loan_number'),
  {
    column: 'loan_number',
    problem: 'already a loan of the enterprise',
    where: `EXISTS (SELECT 1 FROM loans l WHERE l.enterprise_id = i.enterprise_id AND l.number = r.data->>'loan_number'
      AND l.status <> 'cancelled')`,
  },
  knownMember('member_number'),
  knownMember('guarantor_member_number'),
  {
    column: 'loan_officer',
    problem: 'not a user of the enterprise',
    where: `NOT EXISTS (SELECT 1 FROM users u JOIN role_grants g ON g.user_id = u.id
      WHERE u.username = lower(r.data->>'loan_officer') AND g.enterprise_id = i.enterprise_id
        AND g.revoked_at IS NULL)`,
  },
];

const installmentChecks: readonly CrossCheck[] = [
  {
    column: 'loan_number',
    problem: 'not a loan of the loans file',
    where: `NOT EXISTS (SELECT 1 FROM import_rows l WHERE l.import_id = r.import_id AND l.kind = 'loans'
      AND l.data->>'loan_number' = r.data->>'loan_number')`,
  },
];

/**
 * Borrowers judged together: all of a borrower's loans at once (contagion), a bounded number of borrowers at a time.
 */
const borrowersPerBatch = 500;

interface StagedRow {
  row_number: number;
  data: Row;
  refused: boolean;
}

const stagedWithProblems = `SELECT r.row_number, r.data,
  EXISTS (SELECT 1 FROM import_problems p WHERE p.import_id = r.import_id AND p.kind = r.kind
    AND p.row_number = r.row_number) AS refused
  FROM import_rows r WHERE r.import_id = ? AND r.kind = ?`;

/** The installments' rows of the loans numbered `numbers`, by loan number. */
async function installmentRowsOf(
  trx: Knex.Transaction,
  importId: string,
  numbers: readonly string[],
): Promise<Map<string, StagedRow[]>> {
  const rows = (
    await trx.raw<{ rows: StagedRow[] }>(
      `${stagedWithProblems} AND r.data->>'loan_number' = ANY(?) ORDER BY r.row_number`,
      [importId, 'loan-installments', [...numbers]],
    )
  ).rows;
  const byLoan = new Map<string, StagedRow[]>();
  for (const row of rows) byLoan.set(row.data.loan_number!, [...(byLoan.get(row.data.loan_number!) ?? []), row]);
  return byLoan;
}

/** Each borrower's loans against their schedules and classes, a batch of borrowers at a time. */
async function judgeBorrowers(
  trx: Knex.Transaction,
  scope: ImportScope,
  products: Map<string, ProductRow>,
): Promise<void> {
  let after = '';
  for (;;) {
    const members = (
      await trx.raw<{ rows: { member: string }[] }>(
        `SELECT DISTINCT data->>'member_number' AS member FROM import_rows
      WHERE import_id = ? AND kind = 'loans' AND data->>'member_number' > ? ORDER BY 1 LIMIT ?`,
        [scope.importId, after, borrowersPerBatch],
      )
    ).rows.map((row) => row.member);
    if (members.length === 0) return;
    const loans = (
      await trx.raw<{ rows: StagedRow[] }>(
        `${stagedWithProblems} AND r.data->>'member_number' = ANY(?) ORDER BY r.data->>'member_number', r.row_number`,
        [scope.importId, 'loans', members],
      )
    ).rows;
    const installments = await installmentRowsOf(
      trx,
      scope.importId,
      loans.map((loan) => loan.data.loan_number!),
    );
    const problems = members.flatMap((member) =>
      borrowerProblems(
        loans
          .filter((loan) => loan.data.member_number === member)
          .map((loan) => {
            const own = installments.get(loan.data.loan_number!) ?? [];
            const product = products.get(loan.data.product_code!);
            return {
              rowNumber: loan.row_number,
              data: loan.data,
              installments: loanSchedule(
                loan.data,
                own.map((row) => row.data),
                product && termsOf(product),
              ),
              refused: loan.refused || own.some((row) => row.refused),
              realEstate: product?.real_estate ?? false,
            };
          }),
        scope.cutOverDate,
      ),
    );
    if (problems.length > 0) {
      await trx('import_problems').insert(
        problems.map(({ rowNumber, ...problem }) => ({
          enterprise_id: scope.enterpriseId,
          import_id: scope.importId,
          kind: 'loans',
          row_number: rowNumber,
          ...problem,
        })),
      );
    }
    after = members.at(-1)!;
  }
}

const batchRows = 1000;

/**
 * The loans' rows numbered after `after`, at most `limit`, with the code of the borrower's branch (the members file's,
 * else the member's).
 */
async function loanRowsAfter(
  trx: Knex.Transaction,
  scope: ImportScope,
  after: number,
  limit: number,
): Promise<(StagedRow & { branch_code: string })[]> {
  return (
    await trx.raw<{ rows: (StagedRow & { branch_code: string })[] }>(
      `SELECT r.row_number, r.data, false AS refused, coalesce(
       (SELECT m.data->>'branch_code' FROM import_rows m WHERE m.import_id = r.import_id AND m.kind = 'members'
         AND m.data->>'member_number' = r.data->>'member_number' LIMIT 1),
       (SELECT b.code FROM client_profiles c JOIN branches b ON b.id = c.branch_id WHERE c.enterprise_id = :enterpriseId
         AND c.member_number = r.data->>'member_number')) AS branch_code
     FROM import_rows r WHERE r.import_id = :importId AND r.kind = 'loans' AND r.row_number > :after
       ORDER BY r.row_number LIMIT :limit`,
      { importId: scope.importId, enterpriseId: scope.enterpriseId, after, limit },
    )
  ).rows;
}

/** Every loan's principal by class, provision and accrued interest, per branch and account of the chart. */
async function loanDetailTotals(trx: Knex.Transaction, scope: ImportScope): Promise<DetailTotal[]> {
  const products = await productsOf(trx, scope.enterpriseId);
  const leg = await accrualLegOf(trx, scope.enterpriseId);
  const totals = new Map<string, DetailTotal>();
  for (let after = 0; ;) {
    const rows = await loanRowsAfter(trx, scope, after, batchRows);
    if (rows.length === 0) return [...totals.values()];
    for (const row of rows) {
      const product = products.get(row.data.product_code!)!;
      for (const part of loanDetailParts(
        row.data,
        classAccounts(product.portfolio_account_code),
        accrualAccountsOf(leg, product).debitAccount,
        scope.cutOverDate,
      )) {
        const key = `${row.branch_code} ${part.accountCode}`;
        const total = totals.get(key);
        if (total === undefined)
          totals.set(key, {
            branchCode: row.branch_code,
            accountCode: part.accountCode,
            balance: part.balance,
            what: part.what,
          });
        else total.balance = total.balance.plus(part.balance);
      }
    }
    after = rows.at(-1)!.row_number;
  }
}

/**
 * Who an applied batch names: the borrowers and guarantors, the loan officers, and the uploader who stands for an
 * officer left empty.
 */
interface Parties {
  members: Map<string, { id: string; branch_id: string }>;
  officers: Map<string, string>;
  uploader: string;
}

async function partiesOf(trx: Knex.Transaction, scope: ImportScope, rows: readonly StagedRow[]): Promise<Parties> {
  const numbers = rows
    .flatMap((row) => [row.data.member_number!, row.data.guarantor_member_number ?? ''])
    .filter((number) => number !== '');
  const members = await trx('client_profiles')
    .where({ enterprise_id: scope.enterpriseId })
    .whereIn('member_number', numbers)
    .select('id', 'branch_id', 'member_number');
  const usernames = rows.map((row) => (row.data.loan_officer ?? '').toLowerCase()).filter((name) => name !== '');
  const officers = await trx('users').whereIn('username', usernames).select('id', 'username');
  const { uploaded_by: uploader } = await trx('imports').where({ id: scope.importId }).first('uploaded_by');
  return {
    members: new Map(
      members.map((member: { id: string; branch_id: string; member_number: string }) => [member.member_number, member]),
    ),
    officers: new Map(officers.map((officer: { id: string; username: string }) => [officer.username, officer.id])),
    uploader,
  };
}

/**
 * The loan as the file gives it at the cut-over: active, its class, days past due and provision where the provisioning
 * run reads them.
 */
function loanRecord(
  row: Row,
  installments: readonly ImportedInstallment[],
  product: ProductRow,
  parties: Parties,
  scope: ImportScope,
) {
  const borrower = parties.members.get(row.member_number!)!;
  const loanClass = fileClassOf(row.classification!);
  const provision = amountOf(row, 'provision') ?? new Money(0);
  const doubtfulSince = loanClass === 'doubtful' ? parseImportDate(row.doubtful_since!) : null;
  const disbursedOn = parseImportDate(row.disbursement_date!)!;
  return {
    enterprise_id: scope.enterpriseId,
    branch_id: borrower.branch_id,
    client_id: borrower.id,
    product_id: product.id,
    import_id: scope.importId,
    number: row.loan_number,
    principal: formatAmount(amountOf(row, 'original_amount')!),
    fees: '0',
    annual_rate: row.annual_rate,
    penalty_rate: product.penalty_rate,
    method: product.method,
    frequency: product.frequency,
    term_periods: installments.length,
    grace_periods: 0,
    // The old system's effective rate is not in the file: the nominal rate stands for it, in percent.
    teg: new Money(row.annual_rate!).mul(100).toFixed(2),
    status: 'active',
    approved_on: disbursedOn,
    disbursed_on: disbursedOn,
    outstanding_principal: formatAmount(outstandingOf(row)!),
    classification: loanClass,
    days_past_due: daysPastDueOf(installments, scope.cutOverDate),
    litigious: row.classification === 'litigious',
    doubtful_since: doubtfulSince,
    doubtful_account_code: loanClass === 'doubtful' ? doubtfulAccountOf('other') : null,
    provision_amount: formatAmount(provision),
    provision_account_code: provision.isZero()
      ? null
      : doubtfulSince === null
        ? notDoubtfulProvisionAccount
        : provisionAccountOf('other', yearsSince(doubtfulSince, scope.cutOverDate)),
    loan_officer_id:
      (row.loan_officer ?? '') === '' ? parties.uploader : parties.officers.get(row.loan_officer!.toLowerCase())!,
  };
}

/**
 * The installments with what was paid on each. An installment wholly paid is dated paid on its due date (or the
 * cut-over, if earlier): the file does not say when. Penalties run from the cut-over at the latest: those before
 * it were the old system's.
 */
const installmentRecords = (loanId: string, installments: readonly ImportedInstallment[], scope: ImportScope) =>
  installments.map((installment, index) => ({
    enterprise_id: scope.enterpriseId,
    loan_id: loanId,
    number: index + 1,
    due_date: installment.dueDate,
    principal_due: formatAmount(installment.principal),
    interest_due: formatAmount(installment.interest),
    principal_paid: formatAmount(installment.principalPaid),
    interest_paid: formatAmount(installment.interestPaid),
    penalty_through: installment.dueDate < scope.cutOverDate ? scope.cutOverDate : installment.dueDate,
    paid_on:
      installment.principalPaid.eq(installment.principal) && installment.interestPaid.eq(installment.interest)
        ? paidOn(installment.dueDate, scope.cutOverDate)
        : null,
  }));

const paidOn = (dueDate: string, cutOverDate: string) => (dueDate < cutOverDate ? dueDate : cutOverDate);

/** Installment rows per insert: ten columns each, well within PostgreSQL's 65 535 parameters of a statement. */
const installmentsPerInsert = 5000;

/**
 * A batch of loans: one statement per table for the whole batch (the loans, their installments, their schedules'
 * version 1, the guarantees), not a few per loan: 10 000 loans and 300 000 installments are some 20 statements.
 */
async function applyLoans(
  trx: Knex.Transaction,
  _context: DataContext,
  scope: ImportScope,
  afterRow: number,
  limit: number,
): Promise<number | null> {
  const rows = await loanRowsAfter(trx, scope, afterRow, limit);
  if (rows.length === 0) return null;
  const products = await productsOf(trx, scope.enterpriseId);
  const parties = await partiesOf(trx, scope, rows);
  const installmentRows = await installmentRowsOf(
    trx,
    scope.importId,
    rows.map((row) => row.data.loan_number!),
  );
  const loans = rows.map(({ data }) => {
    const product = products.get(data.product_code!)!;
    const installments = loanSchedule(
      data,
      (installmentRows.get(data.loan_number!) ?? []).map((row) => row.data),
      termsOf(product),
    )!;
    return { data, installments, record: loanRecord(data, installments, product, parties, scope) };
  });
  const inserted = (await trx('loans')
    .insert(loans.map((loan) => loan.record))
    .returning(['id', 'number'])) as { id: string; number: string }[];
  const idOf = new Map(inserted.map((loan) => [loan.number, loan.id]));
  const installments = loans.flatMap((loan) =>
    installmentRecords(idOf.get(loan.record.number!)!, loan.installments, scope),
  );
  for (let start = 0; start < installments.length; start += installmentsPerInsert)
    await trx('loan_installments').insert(installments.slice(start, start + installmentsPerInsert));
  await recordOriginalVersions(
    trx,
    inserted.map((loan) => loan.id),
    parties.uploader,
  );
  const held = await heldAccountIds(trx, scope.enterpriseId, rows);
  const guarantees = loans
    .filter(({ data }) => (data.guarantor_member_number ?? '') !== '')
    .map(({ data, record }) => ({
      enterprise_id: scope.enterpriseId,
      loan_id: idOf.get(record.number!)!,
      kind: 'personal_guarantor',
      value: formatAmount(amountOf(data, 'guarantee_value')!),
      start_date: record.disbursed_on,
      valuation_date: record.disbursed_on,
      guarantor_client_id: parties.members.get(data.guarantor_member_number!)!.id,
      status: 'in_force',
      created_by: parties.uploader,
      compte_client_id: held.get(data.guarantee_held_account ?? '') ?? null,
    }));
  if (guarantees.length > 0) await trx('loan_guarantees').insert(guarantees);
  const accruing = loans.map(({ data, record }) => ({
    data,
    product: products.get(data.product_code!)!,
    loanId: idOf.get(record.number!)!,
    branchId: record.branch_id,
  }));
  await insertAccruals(trx, scope, accruing);
  return rows.at(-1)!.row_number;
}

/**
 * Each loan's accrued interest as a standing accrual of the cut-over's month that names the import, its accounts
 * those a month end's accrual would name: the first month end after the cut-over reverses it as its own. No entry
 * of its own: the opening entry carries the ledger's side (docs/domain.md §15.2).
 */
async function insertAccruals(
  trx: Knex.Transaction,
  scope: ImportScope,
  loans: readonly { data: Row; product: ProductRow; loanId: string; branchId: string }[],
): Promise<void> {
  const accruing = loans.filter(({ data }) => amountOf(data, 'accrued_interest')?.isZero() === false);
  if (accruing.length === 0) return;
  const leg = await accrualLegOf(trx, scope.enterpriseId);
  await insertRows(
    trx,
    'loan_interest_accruals',
    accruing.map(({ data, product, loanId, branchId }) => {
      const { debitAccount, creditAccount } = accrualAccountsOf(leg, product);
      return {
        enterprise_id: scope.enterpriseId,
        branch_id: branchId,
        loan_id: loanId,
        import_id: scope.importId,
        period: scope.cutOverDate.slice(0, 7),
        amount: formatAmount(amountOf(data, 'accrued_interest')!),
        accrued_interest_account: debitAccount,
        interest_income_account: creditAccount,
      };
    }),
  );
}

export const loanSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    const products = await productsOf(trx, scope.enterpriseId);
    await checkEachRow(trx, scope, 'loans', (data) => {
      const product = products.get(data.product_code ?? '');
      const bounds =
        product === undefined
          ? undefined
          : {
              minTermPeriods: product.min_term_periods,
              maxTermPeriods: product.max_term_periods,
              realEstate: product.real_estate,
            };
      return [
        ...(product === undefined
          ? [{ column: 'product_code', value: data.product_code!, problem: 'not a loan product of the enterprise' }]
          : []),
        ...loanProblems(data, scope.cutOverDate, bounds),
      ];
    });
    await checkAcrossRows(trx, scope, 'loans', [...loanChecks, ...heldAccountChecks]);
    await judgeBorrowers(trx, scope, products);
  },
  detailTotals: loanDetailTotals,
  applyBatch: applyLoans,
  /**
   * The loans stay (their schedule versions are append-only), cancelled and without a disbursement date, so that no
   * reader of disbursed loans sees them; their guarantees end at the cut-over. Their imported accruals go: nothing
   * posted reads them (cancel is refused once anything but the import was posted).
   */
  async cancel(trx: Knex.Transaction, scope: ImportScope) {
    await trx('loan_interest_accruals').where({ import_id: scope.importId }).delete();
    const loans = trx('loans').where({ import_id: scope.importId }).select('id');
    await trx('loan_guarantees')
      .whereIn('loan_id', loans)
      .whereNull('end_date')
      .update({ end_date: scope.cutOverDate });
    await trx('loans').where({ import_id: scope.importId }).update({ status: 'cancelled', disbursed_on: null });
  },
};

/** The installments are judged row by row here, and with their loan by the loans' steps, which also apply them. */
export const loanInstallmentSteps: ImportKindSteps = {
  async validate(trx: Knex.Transaction, scope: ImportScope) {
    await checkEachRow(trx, scope, 'loan-installments', installmentProblems);
    await checkAcrossRows(trx, scope, 'loan-installments', installmentChecks);
  },
};
