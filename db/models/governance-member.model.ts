import { BaseModel } from './base.model';

/** In order of precedence: how a board lists its members. */
export const offices = ['chair', 'vice_chair', 'secretary', 'treasurer', 'member'] as const;
export type Office = (typeof offices)[number];

/** One mandate on a governance organ; serving while `termEnd` is null. */
export class GovernanceMember extends BaseModel {
  static override tableName = 'governance_members';

  enterpriseId!: string;
  organId!: string;
  fullName!: string;
  office!: Office;
  memberNumber!: string;
  termStart!: string;
  termEnd!: string | null;
  endedReason!: string | null;
}
