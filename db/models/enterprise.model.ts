import { BaseModel } from './base.model';

/** The cooperative: root aggregate, every other resource belongs to one. */
export class Enterprise extends BaseModel {
  static override tableName = 'enterprises';

  code!: string;
  name!: string;
  legalForm!: string;
  country!: string;
  status!: 'active' | 'suspended';
}
