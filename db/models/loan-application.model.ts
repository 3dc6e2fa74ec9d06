import type { ApplicationStatus, ApprovalStep } from '../../domain/loans/approval';
import type { CreditCapBreachRow } from '../../domain/loans/credit-caps';
import { BaseModel } from './base.model';

/** A loan application, from submission through the four-step approval workflow. */
export class LoanApplication extends BaseModel {
  static override tableName = 'loan_applications';
  static override jsonAttributes = ['capBreaches'];

  enterpriseId!: string;
  branchId!: string;
  clientId!: string;
  productId!: string;
  number!: string;
  amount!: string;
  termPeriods!: number;
  gracePeriods!: number;
  purpose!: string;
  fees!: string;
  /** The credit insurance premium quoted at submission: the one the loan carries. */
  insurancePremium!: string;
  teg!: string;
  capBreaches!: CreditCapBreachRow[];
  status!: ApplicationStatus | 'failed';
  currentStep!: ApprovalStep | null;
  finalStep!: ApprovalStep;
  stepStartedAt!: Date;
  statusReason!: string;
  endedAt!: Date | null;
  submittedBy!: string;
  /** The user who will follow the loan: the submitter unless the application names another. */
  loanOfficerId!: string;
  workflowId!: string;
}
