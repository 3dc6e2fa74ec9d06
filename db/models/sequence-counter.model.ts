import { BaseModel } from './base.model';

/** One gap-free counter: see db/sequences.ts for how numbers are taken. */
export class SequenceCounter extends BaseModel {
  static override tableName = 'sequence_counters';

  name!: string;
  enterpriseId!: string | null;
  branchId!: string | null;
  year!: number | null;
  /** The last number given out (bigint: PostgreSQL returns it as a string). */
  value!: string;
}
