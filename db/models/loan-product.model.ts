import type { InsuranceCollection, TermCategory } from '../../domain/loans/loan-product';
import type { PrepaymentStrategy } from '../../domain/loans/prepayment';
import type { Frequency, ScheduleMethod } from '../../domain/loans/schedule';
import { BaseModel } from './base.model';

/** A loan product: bounds, pricing, schedule method and the accounts its events post to. */
export class LoanProduct extends BaseModel {
  static override tableName = 'loan_products';

  enterpriseId!: string;
  code!: string;
  name!: string;
  termCategory!: TermCategory;
  method!: ScheduleMethod;
  frequency!: Frequency;
  dayCount!: '30/360';
  /** Rates as decimal strings ("0.18"); amounts as whole-franc numeric text. */
  annualRate!: string;
  minAmount!: string;
  maxAmount!: string;
  minTermPeriods!: number;
  maxTermPeriods!: number;
  maxGracePeriods!: number;
  feeRate!: string;
  feeFixed!: string;
  penaltyRate!: string;
  realEstate!: boolean;
  portfolioAccountCode!: string;
  interestIncomeAccountCode!: string;
  feeIncomeAccountCode!: string;
  penaltyIncomeAccountCode!: string;
  accruedInterestAccountCode!: string;
  /** Credit insurance (docs/domain.md §14.6): a rate of the principal and a fixed amount, and how it is paid. */
  insuranceRate!: string;
  insuranceFixed!: string;
  insuranceCollection!: InsuranceCollection;
  /** What a partial prepayment does to the schedule unless the request says (docs/domain.md §14.1). */
  prepaymentStrategy!: PrepaymentStrategy;
  /** The early-repayment fee: a rate of the principal prepaid (decimal text), at least the minimum (whole francs). */
  prepaymentFeeRate!: string;
  prepaymentFeeMinimum!: string;
  isActive!: boolean;
}
