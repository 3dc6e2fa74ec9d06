import type { Knex } from 'knex';
import { benchActivityContext } from './bench-database';
import type { Actor } from '../activities/context';
import { hashPassword } from '../activities/auth/passwords';
import { disburseLoan } from '../activities/loans/disbursement.activity';
import { recordLoanDecision } from '../activities/loans/loan-approval.activity';
import { submitLoanApplication } from '../activities/loans/loan-applications.activity';
import { createLoanProduct } from '../activities/loans/loan-products.activity';
import { createShareType } from '../activities/shares/share-types.activity';
import { subscribeShares } from '../activities/shares/subscriptions.activity';
import type { Role } from '../domain/access';
import { Money } from '../domain/money';

export const benchPassword = 'bench password 123';

/**
 * What the loan benchmarks lend from, written by the product's own activities: one user per role of the
 * approval circuit and a second cashier who submits (all enterprise-wide, password `benchPassword`), a 24-month annuity product at 18 %, and
 * 10 000 000 000 XAF of paid-up capital (a 1 000 000 000 XAF cap per member).
 */
export async function seedLending(knex: Knex, enterpriseId: string) {
  const context = benchActivityContext(knex);
  const branch = (await knex('branches').where({ enterprise_id: enterpriseId }).first('id')) as { id: string };
  const hash = await hashPassword(benchPassword);
  const users: Record<string, Actor> = {};
  for (const role of ['cashier', 'branch_head', 'credit_committee', 'direction'] as const satisfies readonly Role[]) {
    const [user] = await knex('users').insert({ username: `bench_${role}`, password_hash: hash, full_name: role }).returning('id');
    await knex('role_grants').insert({ user_id: user.id, role, enterprise_id: enterpriseId, branch_id: null });
    users[role] = { userId: user.id as string, grants: [{ role, enterpriseId, branchId: null }], requestId: 'bench' };
  }
  // The submitter of applications: a cashier who decides none of them (maker-checker).
  const [teller] = await knex('users').insert({ username: 'bench_teller', password_hash: hash, full_name: 'teller' }).returning('id');
  await knex('role_grants').insert({ user_id: teller.id, role: 'cashier', enterprise_id: enterpriseId, branch_id: null });
  const product = await createLoanProduct(context, users.direction!, enterpriseId, {
    code: 'CRT', name: 'Crédit', termCategory: 'cta', method: 'constant_annuity', frequency: 'monthly', annualRate: '0.18', minAmount: '10000', maxAmount: '100000000',
    minTermPeriods: 1, maxTermPeriods: 24, maxGracePeriods: 0, feeRate: '0.01', feeFixed: '0', penaltyRate: '0.12', realEstate: false,
    portfolioAccountCode: '3221', interestIncomeAccountCode: '713', feeIncomeAccountCode: '7153', penaltyIncomeAccountCode: '719',
  });
  let members = 0;
  const newMember = async (): Promise<string> => {
    members += 1;
    const [client] = await knex('client_profiles')
      .insert({ enterprise_id: enterpriseId, branch_id: branch.id, member_number: `BL-${members}`, kind: 'natural_person', first_name: 'Bench', last_name: `Borrower ${members}`, id_document_type: 'national_id', id_document_number: `BL${members}`, birth_date: '1990-01-01', membership_date: '2026-01-01', created_by: users.cashier!.userId })
      .returning('id');
    return client.id as string;
  };
  // The paid-up capital the credit cap reads, subscribed and paid as a teller would.
  const capital = await createShareType(context, users.direction!, enterpriseId, '002', { nominalValue: '10000000', maxShares: 1000 });
  await subscribeShares(context, users.cashier!, { clientId: await newMember(), shareTypeId: capital.id, shares: 1000, initialPayment: null, channel: 'cash', accountId: null, reference: '', idempotencyKey: null });
  /** A loan granted and paid out in cash, through the activities the workflow and the API call. */
  const disbursedLoan = async (amount: string): Promise<string> => {
    const { application } = await submitLoanApplication(context, users.cashier!, { clientId: await newMember(), productId: product.id, amount: new Money(amount), termPeriods: 24, gracePeriods: 0, purpose: '' });
    const recorded = await recordLoanDecision(knex, new Date(), {
      applicationId: application.id, idempotencyKey: `bench:${application.id}`, step: 'direction', decision: 'approve', deciderId: users.direction!.userId, comment: '', requestId: null, statusAfter: 'approved', stepAfter: null,
    });
    if (recorded.outcome !== 'recorded') throw new Error(`approval refused: ${recorded.code}`);
    await disburseLoan(context, users.cashier!, { loanId: recorded.loanId!, channel: 'cash', accountId: null });
    return recorded.loanId!;
  };
  return { productId: product.id, newMember, disbursedLoan };
}
