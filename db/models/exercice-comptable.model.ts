import { BaseModel } from './base.model';

/** An accounting year (exercice comptable): postings go to an open one only. */
export class ExerciceComptable extends BaseModel {
  static override tableName = 'exercices_comptables';

  enterpriseId!: string;
  code!: string;
  startDate!: string;
  endDate!: string;
  status!: 'open' | 'closed';
  closedAt!: Date | null;
  closedBy!: string | null;
}
