import type {
  DayCount,
  InterestBasis,
  interestPayments,
  PostingFrequency,
} from '../../domain/members/savings-interest';
import type { MaturityInstruction } from '../../domain/members/term-deposits';
import { BaseModel } from './base.model';

export class SavingsProduct extends BaseModel {
  static override tableName = 'savings_products';

  enterpriseId!: string;
  code!: string;
  name!: string;
  kind!: 'demand_deposit' | 'term_deposit' | 'blocked_savings';
  /** Whole francs, as PostgreSQL numeric text. */
  minimumOpeningBalance!: string;
  minimumBalance!: string;
  withdrawalsAllowed!: boolean;
  /** Annual rate as a decimal string ("0.035"). */
  interestRate!: string;
  accruedInterestAccountCode!: string;
  /**
   * Where its interest goes: the account itself, or for a term deposit at maturity or to the payout account
   * (docs/domain.md §9).
   */
  interestPayment!: (typeof interestPayments)[number];
  depositAccountCode!: string;
  isActive!: boolean;
  /** How interest is computed and posted (docs/domain.md §9). */
  interestBasis!: InterestBasis;
  dayCount!: DayCount;
  postingFrequency!: PostingFrequency;
  /** Decimal string, the share of the gross interest withheld for the State. */
  withholdingTaxRate!: string;
  withholdingTaxAccountCode!: string;
  interestExpenseAccountCode!: string;
  /** Term deposits only: the months from opening to maturity. */
  termMonths!: number | null;
  /** Term deposits only: what happens at maturity (paid out, renewed, renewed with the interest). */
  maturityInstruction!: MaturityInstruction | null;
  /**
   * Term deposits only: the annual rate (decimal string) a term closed before maturity earns instead of the contract's.
   */
  earlyClosureRate!: string | null;
}
