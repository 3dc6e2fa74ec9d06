import type { Knex } from 'knex';
import { benchActivityContext } from './bench-database';
import type { Actor, ActivityContext } from '../activities/context';
import { hashPassword } from '../activities/auth/passwords';
import { recordBusinessEvent } from '../activities/events/record-business-event';
import { disburseLoan } from '../activities/loans/disbursement.activity';
import { recordLoanDecision } from '../activities/loans/loan-approval.activity';
import { submitLoanApplication } from '../activities/loans/loan-applications.activity';
import { createLoanProduct } from '../activities/loans/loan-products.activity';
import { createShareType } from '../activities/shares/share-types.activity';
import { subscribeShares } from '../activities/shares/share-subscriptions.activity';
import type { Role } from '../domain/access';
import { Money } from '../domain/money';
import { inTransaction } from '../db/transaction';

export const benchPassword = 'bench password 123';

/** The benchmarks' loan product: 1 to 24 months, annuities at 18 %, its principal on 3221. */
export function createBenchProduct(context: ActivityContext, actor: Actor, enterpriseId: string) {
  return createLoanProduct(context, actor, enterpriseId, {
    code: 'CRT',
    name: 'Crédit',
    termCategory: 'cta',
    method: 'constant_annuity',
    frequency: 'monthly',
    annualRate: '0.18',
    minAmount: '10000',
    maxAmount: '100000000',
    minTermPeriods: 1,
    maxTermPeriods: 24,
    maxGracePeriods: 0,
    feeRate: '0.01',
    feeFixed: '0',
    penaltyRate: '0.12',
    realEstate: false,
    portfolioAccountCode: '3221',
    interestIncomeAccountCode: '713',
    feeIncomeAccountCode: '7153',
    penaltyIncomeAccountCode: '719',
  });
}

/** One user per role of the approval circuit, and a second cashier who submits; all enterprise-wide. */
async function seedLendingUsers(knex: Knex, enterpriseId: string): Promise<Record<string, Actor>> {
  const hash = await hashPassword(benchPassword);
  const users: Record<string, Actor> = {};
  for (const role of ['cashier', 'branch_head', 'credit_committee', 'direction'] as const satisfies readonly Role[]) {
    const [user] = await knex('users')
      .insert({ username: `bench_${role}`, password_hash: hash, full_name: role })
      .returning('id');
    await knex('role_grants').insert({ user_id: user.id, role, enterprise_id: enterpriseId, branch_id: null });
    users[role] = { userId: user.id as string, grants: [{ role, enterpriseId, branchId: null }], requestId: 'bench' };
  }
  // The submitter of applications: a cashier who decides none of them (maker-checker).
  const [teller] = await knex('users')
    .insert({ username: 'bench_teller', password_hash: hash, full_name: 'teller' })
    .returning('id');
  await knex('role_grants').insert({
    user_id: teller.id,
    role: 'cashier',
    enterprise_id: enterpriseId,
    branch_id: null,
  });
  return users;
}

/**
 * What the loan benchmarks lend from, written by the product's own activities: one user per role of the approval
 * circuit and a second cashier who submits (all enterprise-wide, password `benchPassword`), a 24-month annuity product
 * at 18 %, and 10 000 000 000 XAF of paid-up capital (a 1 000 000 000 XAF cap per member).
 */
export async function seedLending(knex: Knex, enterpriseId: string) {
  const context = benchActivityContext(knex);
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')) as { id: string };
  const users = await seedLendingUsers(knex, enterpriseId);
  const product = await createBenchProduct(context, users.direction!, enterpriseId);
  let members = 0;
  const newMember = async (): Promise<string> => {
    members += 1;
    const [client] = await knex('client_profiles')
      .insert({
        enterprise_id: enterpriseId,
        branch_id: branch.id,
        member_number: `BL-${members}`,
        kind: 'natural_person',
        first_name: 'Bench',
        last_name: `Borrower ${members}`,
        id_document_type: 'national_id',
        id_document_number: `BL${members}`,
        birth_date: '1990-01-01',
        membership_date: '2026-01-01',
        created_by: users.cashier!.userId,
      })
      .returning('id');
    return client.id as string;
  };
  // The paid-up capital the credit cap reads, subscribed and paid as a teller would.
  const capital = await createShareType(context, users.direction!, enterpriseId, '002', {
    nominalValue: '10000000',
    maxShares: 1000,
  });
  await subscribeShares(context, users.cashier!, {
    clientId: await newMember(),
    shareTypeId: capital.id,
    shares: 1000,
    initialPayment: null,
    channel: 'cash',
    accountId: null,
    reference: '',
    idempotencyKey: null,
  });
  /** A loan granted and paid out in cash, through the activities the workflow and the API call. */
  const disbursedLoan = async (amount: string): Promise<string> => {
    const { application } = await submitLoanApplication(context, users.cashier!, {
      clientId: await newMember(),
      productId: product.id,
      amount: new Money(amount),
      termPeriods: 24,
      gracePeriods: 0,
      purpose: '',
    });
    const recorded = await recordLoanDecision(knex, new Date(), {
      applicationId: application.id,
      idempotencyKey: `bench:${application.id}`,
      step: 'direction',
      decision: 'approve',
      deciderId: users.direction!.userId,
      comment: '',
      requestId: null,
      statusAfter: 'approved',
      stepAfter: null,
    });
    if (recorded.outcome !== 'recorded') throw new Error(`approval refused: ${recorded.code}`);
    await disburseLoan(context, users.cashier!, { loanId: recorded.loanId!, channel: 'cash', accountId: null });
    return recorded.loanId!;
  };
  return { productId: product.id, newMember, disbursedLoan };
}

/**
 * `loans` disbursed loans of 1 200 000 over 12 months from 15 January, one per member, written set-based as
 * the activities would leave them (members, applications, loans, installments, outstanding principal, and the
 * principal on the portfolio account). Every
 * `arrearsShare`-th loan (numbered n) stopped paying after (n / arrearsShare) mod 10 months, so up to eight
 * months in arrears on 2 October 2026; the others are paid to date (eight installments, February to September).
 */
export async function seedPortfolio(
  knex: Knex,
  portfolio: { enterpriseId: string; productId: string; userId: string; loans: number; arrearsShare: number },
): Promise<void> {
  const { enterpriseId, productId, userId, loans, arrearsShare } = portfolio;
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')).id as string;
  const paidMonths = `CASE WHEN n % ${arrearsShare} = 0 THEN LEAST(8, (n / ${arrearsShare}) % 10) ELSE 8 END`;
  await knex.raw(
    `
    INSERT INTO client_profiles (enterprise_id, branch_id, member_number, kind, first_name, last_name,
                                 id_document_type, id_document_number, birth_date, membership_date, created_by)
    SELECT ?, ?, 'P-' || n, 'natural_person', 'Bench', 'Borrower ' || n, 'national_id', 'P' || n,
           '1990-01-01', '2025-01-01', ?
    FROM generate_series(1, ?) n`,
    [enterpriseId, branch, userId, loans],
  );
  await knex.raw(
    `
    INSERT INTO loan_applications (enterprise_id, branch_id, client_id, product_id, number, amount, term_periods, fees,
                                   teg, status, current_step, submitted_by, loan_officer_id, workflow_id)
    SELECT c.enterprise_id, c.branch_id, c.id, ?, 'D-' || substr(c.member_number, 3), 1200000, 12, 12000,
           21.47, 'approved', NULL, ?, ?, 'seeded'
    FROM client_profiles c WHERE c.enterprise_id = ? AND c.member_number LIKE 'P-%'`,
    [productId, userId, userId, enterpriseId],
  );
  // 100 000 principal + 10 000 interest a month (round figures: the run reads what is unpaid, not how it was computed).
  await knex.raw(
    `
    INSERT INTO loans (enterprise_id, branch_id, client_id, product_id, application_id, number, principal, fees,
                       annual_rate, penalty_rate, method, frequency, term_periods, grace_periods, teg, status,
                       approved_on, disbursed_on, disbursement_channel, outstanding_principal, loan_officer_id)
    SELECT a.enterprise_id, a.branch_id, a.client_id, a.product_id, a.id, 'L-' || n, 1200000, 12000,
           0.18, 0.12, 'constant_annuity', 'monthly', 12, 0, 21.47, 'active',
           '2026-01-15', '2026-01-15', 'cash', 1200000 - 100000 * (${paidMonths}), a.loan_officer_id
    FROM loan_applications a CROSS JOIN LATERAL (SELECT substr(a.number, 3)::int AS n) number
    WHERE a.enterprise_id = ? AND a.workflow_id = 'seeded'`,
    [enterpriseId],
  );
  await knex.raw(
    `
    INSERT INTO loan_installments (enterprise_id, loan_id, number, due_date, principal_due, interest_due,
                                   principal_paid, interest_paid, penalty_through, paid_on)
    SELECT ?, l.id, k, due, 100000, 10000,
           CASE WHEN paid THEN 100000 ELSE 0 END, CASE WHEN paid THEN 10000 ELSE 0 END, due, CASE WHEN paid THEN due END
    FROM (SELECT id, substr(number, 3)::int AS n FROM loans WHERE enterprise_id = ?) l
    CROSS JOIN generate_series(1, 12) k
    CROSS JOIN LATERAL (SELECT (date '2026-02-15' + make_interval(months => k - 1))::date AS due) d
    CROSS JOIN LATERAL (SELECT k <= ${paidMonths} AS paid) p`,
    [enterpriseId, enterpriseId],
  );
  // The principal on the portfolio account, as the disbursements less the repayments would have left it.
  const total = await knex('loans')
    .where({ enterprise_id: enterpriseId })
    .first(knex.raw('sum(outstanding_principal)::text AS total'));
  await inTransaction(knex, (trx) =>
    recordBusinessEvent(trx, new Date(), {
      enterpriseId,
      branchId: branch,
      kind: 'loan_disbursement',
      amount: new Money(total.total as string),
      payload: { seeded: loans },
      idempotencyKey: 'bench-portfolio',
      actorId: userId,
    }),
  );
  await knex.raw('VACUUM ANALYZE');
}
