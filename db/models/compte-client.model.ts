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
}
