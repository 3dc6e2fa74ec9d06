import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import type { Knex } from 'knex';
import { startProvisioningRun } from '../activities/loans/provisioning.activity';
import { round, type Benchmark } from './benchmark';
import { withBenchDatabase } from './bench-database';
import { newEnterprise } from './ledger-posting.bench';
import { seedLending } from './loan-seed';
import { withTemporalWorker } from './temporal-worker';

const loans = 100_000;
/** One loan in ten is in arrears, of 0 to 9 months (0 to 270 days). */
const arrearsShare = 10;

/**
 * A provisioning run over 100 000 loans (12 monthly installments each, 1 200 000 rows) through the real
 * workflow, worker and activities, in batches of 1000: the first day (one loan in ten in arrears of up to
 * nine months: reclassifications and provision charges to post) and the next day (steady state). Beside it,
 * the floor that set-based SQL allows: one statement computing every loan's days past due over the same tables.
 */
export const provisioningBenchmark: Benchmark = {
  name: 'provisioning',
  run: () => withBenchDatabase(measure, 12),
};

async function measure(knex: Knex) {
  const enterpriseId = await newEnterprise(knex);
  const { productId } = await seedLending(knex, enterpriseId);
  const seeding = performance.now();
  await seedPortfolio(knex, enterpriseId, productId);
  const seedSeconds = (performance.now() - seeding) / 1000;
  const floor = await ageQuery(knex, '2026-10-01');
  const runs = await withTemporalWorker(knex, async ({ address, taskQueue }) => {
    const connection = await Connection.connect({ address });
    try {
      const client = new Client({ connection });
      const timedRun = async (asOf: string) => {
        await knex('enterprise_configurations').where({ enterprise_id: enterpriseId }).update({ business_date: asOf });
        const run = await startProvisioningRun(knex, new Date(), { enterpriseId, asOf, trigger: 'api', requestedBy: null });
        const began = performance.now();
        await client.workflow.execute('provisioningRun', { taskQueue, workflowId: `provisioning-run-${run.id}`, args: [{ enterpriseId, runId: run.id }] });
        const seconds = (performance.now() - began) / 1000;
        const row = await knex('provisioning_runs').where({ id: run.id }).first();
        return {
          asOf,
          seconds: round(seconds, 2),
          loansPerSecond: round(row.loans_processed / seconds, 0),
          loansProcessed: row.loans_processed as number,
          provisionsChanged: row.provisions_changed as number,
          loansReclassified: row.loans_reclassified as number,
          amountCharged: row.amount_charged as string,
        };
      };
      return [await timedRun('2026-10-01'), await timedRun('2026-10-02')];
    } finally {
      await connection.close();
    }
  });
  const books = await knex.raw(`
    SELECT (SELECT sum(debit) - sum(credit) FROM journal_lines)::text AS difference,
           (SELECT sum(l.credit - l.debit) FROM journal_lines l JOIN company_chart_entries c ON c.id = l.chart_entry_id WHERE c.code = '3931')::text AS provisions_account,
           (SELECT sum(amount) FROM loan_provisions WHERE as_of = '2026-10-02')::text AS provisions_rows`);
  const check = books.rows[0] as { difference: string; provisions_account: string; provisions_rows: string };
  const result = {
    name: 'provisioning',
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.availableParallelism(),
    loans,
    installments: loans * 12,
    seedSeconds: round(seedSeconds, 1),
    firstDay: runs[0],
    nextDay: runs[1],
    singleAgeQuery: { seconds: round(floor, 3), loansPerSecond: round(loans / floor, 0) },
    ratio: { nextDayToFloor: round(runs[1]!.loansPerSecond / (loans / floor), 3) },
    books: { debitMinusCredit: check.difference, provisionsAccountEqualsRows: check.provisions_account === check.provisions_rows },
    notes: [
      'The run: provisioningRun workflow on a local Temporal dev server, batches of 1000 loans, each one transaction (facts query, classification and provisions in the domain, LoanProvision rows, entries, loan updates, cursor).',
      'The floor: one SELECT of every loan\'s oldest unpaid due date (the ages), nothing written.',
      'One embedded PostgreSQL (default settings), the worker and the dev server on the same 2-core machine.',
    ],
  };
  const summary = `provisioning ${loans} loans: first day ${runs[0]!.loansPerSecond} loans/s (${runs[0]!.provisionsChanged} provisions changed), next day ${runs[1]!.loansPerSecond} loans/s; one age query ${result.singleAgeQuery.loansPerSecond} loans/s (ratio ${result.ratio.nextDayToFloor}); books difference ${check.difference}, 393 = provisions: ${result.books.provisionsAccountEqualsRows}`;
  return { result, summary };
}

/** Members, applications, disbursed loans and their installments, set-based, as the activities would leave them. */
async function seedPortfolio(knex: Knex, enterpriseId: string, productId: string): Promise<void> {
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id as string;
  const user = (await knex('users').where({ username: 'bench_cashier' }).first('id')).id as string;
  await knex.raw(`
    INSERT INTO client_profiles (enterprise_id, branch_id, member_number, kind, first_name, last_name, id_document_type, id_document_number, birth_date, membership_date, created_by)
    SELECT ?, ?, 'P-' || n, 'natural_person', 'Bench', 'Borrower ' || n, 'national_id', 'P' || n, '1990-01-01', '2025-01-01', ? FROM generate_series(1, ?) n`, [enterpriseId, branch, user, loans]);
  await knex.raw(`
    INSERT INTO loan_applications (enterprise_id, branch_id, client_id, product_id, number, amount, term_periods, fees, teg, status, current_step, submitted_by, workflow_id)
    SELECT ?, ?, c.id, ?, 'D-' || c.member_number, 1200000, 12, 12000, 21.47, 'approved', NULL, ?, 'seeded'
    FROM client_profiles c WHERE c.member_number LIKE 'P-%'`, [enterpriseId, branch, productId, user]);
  await knex.raw(`
    INSERT INTO loans (enterprise_id, branch_id, client_id, product_id, application_id, number, principal, fees, annual_rate, penalty_rate, method, frequency, term_periods, grace_periods, teg, status, approved_on, disbursed_on, disbursement_channel, outstanding_principal)
    SELECT a.enterprise_id, a.branch_id, a.client_id, a.product_id, a.id, 'L-' || a.number, 1200000, 12000, 0.18, 0.12, 'constant_annuity', 'monthly', 12, 0, 21.47, 'active', '2026-01-15', '2026-01-15', 'cash', 1200000
    FROM loan_applications a WHERE a.workflow_id = 'seeded'`);
  // 100 000 principal + 10 000 interest a month (round figures: the run reads what is unpaid, not how it was computed).
  // Loans whose number ends in 0 stopped paying after (number mod 10) months; the others are paid to date.
  await knex.raw(`
    INSERT INTO loan_installments (loan_id, number, due_date, principal_due, interest_due, principal_paid, interest_paid, penalty_through, paid_on)
    SELECT l.id, k, (date '2026-02-15' + make_interval(months => k - 1))::date, 100000, 10000,
           CASE WHEN paid THEN 100000 ELSE 0 END, CASE WHEN paid THEN 10000 ELSE 0 END,
           (date '2026-02-15' + make_interval(months => k - 1))::date, CASE WHEN paid THEN (date '2026-02-15' + make_interval(months => k - 1))::date END
    FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM loans) l
    CROSS JOIN generate_series(1, 12) k
    CROSS JOIN LATERAL (SELECT (date '2026-02-15' + make_interval(months => k - 1))::date <= date '2026-10-02'
                          AND NOT (l.n % ${arrearsShare} = 0 AND k > (l.n / ${arrearsShare}) % 10) AS paid) p`);
  await knex.raw(`
    UPDATE loans SET outstanding_principal = 1200000 - paid.principal
    FROM (SELECT loan_id, sum(principal_paid) AS principal FROM loan_installments GROUP BY loan_id) paid WHERE paid.loan_id = loans.id`);
  await knex.raw('VACUUM ANALYZE');
}

async function ageQuery(knex: Knex, asOf: string): Promise<number> {
  const began = performance.now();
  const result = await knex.raw(`
    SELECT l.id, ?::date - min(i.due_date) AS days_past_due
    FROM loans l LEFT JOIN loan_installments i ON i.loan_id = l.id AND i.paid_on IS NULL AND i.due_date < ?
    WHERE l.status = 'active' GROUP BY l.id`, [asOf, asOf]);
  if (result.rows.length !== loans) throw new Error(`the age query saw ${result.rows.length} loans`);
  return (performance.now() - began) / 1000;
}
