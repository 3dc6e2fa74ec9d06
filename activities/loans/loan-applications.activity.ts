import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import { finalStepFor } from '../../domain/loans/approval';
import { assertWithinProduct, loanTermsOf, type RequestedTerms } from '../../domain/loans/loan-product';
import { simulateLoan, type Simulation } from '../../domain/loans/simulation';
import { formatAmount } from '../../domain/money';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';
import { LoanApplication } from '../../db/models/loan-application.model';
import { LoanProduct } from '../../db/models/loan-product.model';
import { newYearlyRecord } from '../../db/sequences';
import { loanApprovalWorkflowId } from '../../workflows/identities';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { assertCreditCaps } from './credit-exposure';
import { loanOfficerFor } from './loan-officers.activity';
import { assertApplicationWithinUsury } from './usury-rates.activity';

function assertActiveProduct(product: LoanProduct | undefined, enterpriseId: string): asserts product is LoanProduct {
  if (product === undefined || product.enterpriseId !== enterpriseId) {
    throw new AppError('validation', 'invalid_request', 'The product is not a loan product of this enterprise.', [
      { field: 'product', message: 'product must be a loan product of the enterprise' },
    ]);
  }
  if (!product.isActive)
    throw new AppError(
      'conflict',
      'product_inactive',
      `Loan product ${product.code} is deactivated: no new application.`,
    );
}

/** A schedule for a product and terms, creating nothing; the start date defaults to the business date. */
export async function simulateForProduct(
  context: ActivityContext,
  product: LoanProduct,
  requested: RequestedTerms,
  startDate: string | undefined,
): Promise<Simulation & { startDate: string }> {
  assertWithinProduct(product, requested);
  const start =
    startDate ??
    (await inTransaction(context.knex, (trx) => businessDateOf(trx, product.enterpriseId, context.clock())));
  return { ...simulateLoan(loanTermsOf(product, requested, start)), startDate: start };
}

export interface SubmissionInput extends RequestedTerms {
  clientId: string;
  productId: string;
  purpose: string;
  /** The loan officer named by the request; absent: the submitter. */
  loanOfficerId?: string;
}

/** The application's id and number, `{branch}-D{year}-{n}` per branch and year. */
const newApplicationNumber = (trx: Knex.Transaction, client: ClientForCredit, businessDate: string) =>
  newYearlyRecord(
    trx,
    { name: 'loan_application', enterpriseId: client.enterprise_id, branchId: client.branch_id },
    businessDate,
    (year, sequence) => `${client.branch_code}-D${year}-${String(sequence).padStart(5, '0')}`,
  );

/**
 * Records an application in review at the cashier step: an active member, an active product of the member's
 * enterprise, terms within bounds, credit caps as configured. Numbered `{branch}-D{year}-{n}` per branch and
 * year. The caller then starts its approval workflow.
 */
export async function submitLoanApplication(
  context: ActivityContext,
  actor: Actor,
  input: SubmissionInput,
): Promise<{ application: LoanApplication; stepTimeLimitDays: number }> {
  return inTransaction(context.knex, async (trx) => {
    const client = await clientForCredit(trx, input.clientId);
    const product = await LoanProduct.query(trx).findById(input.productId);
    assertActiveProduct(product, client.enterprise_id);
    assertWithinProduct(product, input);
    const configuration = await EnterpriseConfiguration.query(trx)
      .findOne({ enterprise_id: client.enterprise_id })
      .throwIfNotFound();
    const businessDate = await businessDateOf(trx, client.enterprise_id, context.clock());
    const simulation = simulateLoan(loanTermsOf(product, input, businessDate));
    await assertApplicationWithinUsury(trx, client.enterprise_id, businessDate, simulation.teg);
    const capBreaches = await assertCreditCaps(trx, {
      enterpriseId: client.enterprise_id,
      clientId: client.id,
      relatedParty: client.related_party,
      requested: input.amount,
      mode: configuration.creditCapMode,
    });
    const { id, number } = await newApplicationNumber(trx, client, businessDate);
    const application = await LoanApplication.query(trx).insertAndFetch({
      id,
      enterpriseId: client.enterprise_id,
      branchId: client.branch_id,
      clientId: client.id,
      productId: product.id,
      number,
      amount: formatAmount(input.amount),
      termPeriods: input.termPeriods,
      gracePeriods: input.gracePeriods,
      purpose: input.purpose,
      fees: formatAmount(simulation.fees),
      insurancePremium: formatAmount(simulation.insurance.premium),
      teg: simulation.teg,
      capBreaches,
      status: 'in_review',
      currentStep: 'cashier',
      finalStep: finalStepFor(input.amount, configuration.approvalLimits),
      submittedBy: actor.userId,
      loanOfficerId: await loanOfficerFor(
        trx,
        { enterpriseId: client.enterprise_id, branchId: client.branch_id },
        input.loanOfficerId ?? actor.userId,
      ),
      workflowId: loanApprovalWorkflowId(id),
    });
    await recordAudit(trx, actor, {
      action: 'loan_application.submit',
      entityType: 'loan_application',
      entityId: application.id,
      enterpriseId: application.enterpriseId,
      details: {
        number,
        amount: application.amount,
        term_periods: input.termPeriods,
        product: product.code,
        cap_breaches: capBreaches,
      },
    });
    return { application, stepTimeLimitDays: configuration.approvalStepTimeLimitDays };
  });
}

interface ClientForCredit {
  id: string;
  enterprise_id: string;
  branch_id: string;
  branch_code: string;
  status: string;
  related_party: boolean;
}

/** The member, locked against a concurrent application (the caps read their outstanding credit), active. */
export async function clientForCredit(trx: Knex.Transaction, clientId: string): Promise<ClientForCredit> {
  const client: ClientForCredit | undefined = await trx('client_profiles as c')
    .join('branches as b', 'b.id', 'c.branch_id')
    .where('c.id', clientId)
    .forUpdate('c')
    .first('c.id', 'c.enterprise_id', 'c.branch_id', 'b.code as branch_code', 'c.status', 'c.related_party');
  if (client === undefined) throw new NotFoundError('The member');
  if (client.status !== 'active')
    throw new AppError('conflict', 'member_not_active', `The member is ${client.status}: no credit can be granted.`);
  return client;
}

/** The workflow could not be started: the application ends, with the reason, instead of waiting forever. */
export async function markApplicationFailed(knex: Knex, applicationId: string, reason: string): Promise<void> {
  await knex('loan_applications')
    .where({ id: applicationId, status: 'in_review' })
    .update({ status: 'failed', current_step: null, status_reason: reason, ended_at: knex.fn.now() });
}
