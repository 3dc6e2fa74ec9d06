import type { ApprovalLimits } from '../../domain/loans/approval';
import type { SecondRestructuringRule } from '../../domain/loans/restructuring';
import type { LadderStep } from '../../domain/provisioning-ladder';
import { BaseModel } from './base.model';

/** The enterprise's parameters that later modules read (business date, notice periods, ladder…). */
export class EnterpriseConfiguration extends BaseModel {
  static override tableName = 'enterprise_configurations';
  static override jsonAttributes = ['provisioningLadder', 'approvalLimits'];

  enterpriseId!: string;
  timeZone!: string;
  currency!: string;
  businessDate!: string | null;
  shareWithdrawalNoticeDays!: number;
  shareRefundReminderDays!: number;
  approvalStepTimeLimitDays!: number;
  provisioningHour!: number;
  provisioningLadder!: LadderStep[];
  creditCapMode!: 'enforce' | 'warn';
  approvalLimits!: ApprovalLimits;
  allowSeveralOpenExercices!: boolean;
  /**
   * Issue 28, part 1: where an opening entry puts each branch's difference, to be justified by the go-live import
   * (docs/domain.md §12.1).
   */
  openingSuspenseAccountCode!: string;
  /**
   * Issue 29: the hour of the daily end-of-day Schedule; null (the default): none, direction starts it (docs/domain.md
   * §13.3).
   */
  endOfDayHour!: number | null;
  /**
   * Issue 29, serving members across branches: a branch's counter may serve members of another (docs/domain.md §13.4).
   */
  interBranchService!: boolean;
  /** Issue 30's follow-up: what a second or later restructuring does to the loan's class (docs/domain.md §14.2). */
  secondRestructuringRule!: SecondRestructuringRule;
}
