import type { LoanClass } from '../../domain/loans/classification';
import type { InsuranceCollection } from '../../domain/loans/loan-product';
import type { Frequency, ScheduleMethod } from '../../domain/loans/schedule';
import { BaseModel } from './base.model';

export type LoanStatus = 'awaiting_disbursement' | 'active' | 'closed' | 'written_off' | 'cancelled';

/**
 * A granted loan: created by the final approval, active once disbursed, closed once repaid; or brought in active by an
 * import (cancelled with it).
 */
export class Loan extends BaseModel {
  static override tableName = 'loans';

  enterpriseId!: string;
  branchId!: string;
  clientId!: string;
  productId!: string;
  /** The application it was granted on; null for a loan brought in by a go-live import (`importId`). */
  applicationId!: string | null;
  importId!: string | null;
  number!: string;
  principal!: string;
  fees!: string;
  /** Credit insurance as granted (docs/domain.md §14.6). */
  insurancePremium!: string;
  insuranceCollection!: InsuranceCollection;
  annualRate!: string;
  penaltyRate!: string;
  method!: ScheduleMethod;
  frequency!: Frequency;
  termPeriods!: number;
  gracePeriods!: number;
  teg!: string;
  /** The version of its schedule in force (`loan_schedule_versions`); 1 from the disbursement. */
  scheduleVersion!: number;
  status!: LoanStatus;
  approvedOn!: string;
  disbursedOn!: string | null;
  disbursementChannel!: 'account' | 'cash' | null;
  disbursementAccountId!: string | null;
  disbursedBy!: string | null;
  outstandingPrincipal!: string;
  closedOn!: string | null;
  classification!: LoanClass;
  daysPastDue!: number;
  provisionAmount!: string;
  litigious!: boolean;
  doubtfulSince!: string | null;
  /** Where its principal sits while doubtful (by cover, docs/domain.md §4); null otherwise. */
  doubtfulAccountCode!: string | null;
  /** Where its provision sits; null when it never had one. */
  provisionAccountCode!: string | null;
  writtenOffOn!: string | null;
  writtenOffAmount!: string | null;
  writtenOffBy!: string | null;
  writeOffApproval!: string;
  /** The user who follows the loan (docs/domain.md §14.5): the application's, then whoever it is reassigned to. */
  loanOfficerId!: string;
  /**
   * Issue 30, restructuring (docs/domain.md §14.2): restructured at least once, how many times, the last one's date.
   */
  restructured!: boolean;
  restructuringCount!: number;
  restructuredOn!: string | null;
}
