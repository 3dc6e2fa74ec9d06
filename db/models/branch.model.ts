import { BaseModel } from './base.model';

export class Branch extends BaseModel {
  static override tableName = 'branches';

  enterpriseId!: string;
  code!: string;
  name!: string;
  isHeadOffice!: boolean;
  address!: string;
  city!: string;
  phone!: string;
  status!: 'active' | 'closed';
}
