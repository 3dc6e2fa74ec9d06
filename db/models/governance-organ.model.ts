import { BaseModel } from './base.model';

export const organKinds = ['general_assembly', 'board_of_directors', 'supervisory_board', 'credit_committee'] as const;
export type OrganKind = (typeof organKinds)[number];

/** A governance organ of the cooperative: at most one of each kind per enterprise. */
export class GovernanceOrgan extends BaseModel {
  static override tableName = 'governance_organs';

  enterpriseId!: string;
  kind!: OrganKind;
  name!: string;
  description!: string;
}
