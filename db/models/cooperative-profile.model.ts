import { BaseModel } from './base.model';

/** The cooperative's legal identity: COBAC approval, category, founding, head office. */
export class CooperativeProfile extends BaseModel {
  static override tableName = 'cooperative_profiles';

  enterpriseId!: string;
  approvalNumber!: string;
  category!: '1' | '2' | '3' | null;
  foundingDate!: string | null;
  headOfficeAddress!: string;
  registrationNumber!: string;
}
