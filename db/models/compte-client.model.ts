import { BaseModel } from './base.model';

/** A member's account (compte client) under a savings product. */
export class CompteClient extends BaseModel {
  static override tableName = 'comptes_clients';

  enterpriseId!: string;
  branchId!: string;
  clientId!: string;
  productId!: string;
  number!: string;
  status!: 'open' | 'frozen' | 'closed';
  /** Whole francs, as PostgreSQL numeric text. */
  balance!: string;
  openedOn!: string;
  closedOn!: string | null;
  openedBy!: string | null;
  /**
   * Term deposits only: opened_on plus the product's term; the day capital and interest leave for the payout account.
   */
  maturityDate!: string | null;
  /** Term deposits only: the member's demand account paid at maturity. */
  payoutAccountId!: string | null;
  /** An imported term deposit's own annual rate until its maturity (docs/domain.md §9); null: the product's rates. */
  contractRate!: string | null;
}
