import { BaseModel } from './base.model';

/** A usury rate of an enterprise from a date (docs/domain.md §14.6): a TEG ceiling in percent, with its source. */
export class UsuryRate extends BaseModel {
  static override tableName = 'usury_rates';

  enterpriseId!: string;
  /** Percent with two decimals, as the TEG ("60.94"). */
  rate!: string;
  effectiveFrom!: string;
  sourceReference!: string;
  createdBy!: string;
}
