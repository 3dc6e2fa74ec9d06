import * as yup from 'yup';
import type { OrganWithMembers } from '../../../activities/enterprise/governance.queries';
import { offices, type GovernanceMember } from '../../../db/models/governance-member.model';
import { organKinds } from '../../../db/models/governance-organ.model';
import { timestampResponse } from '../common.schemas';

export const memberSchema = yup
  .object({
    id: yup.string().uuid().required(),
    organ: yup.string().uuid().required(),
    full_name: yup.string().required(),
    office: yup.string().oneOf(offices).required(),
    member_number: yup.string().defined(),
    term_start: yup.string().required(),
    term_end: yup.string().nullable().defined().meta({ description: 'null while serving.' }),
    ended_reason: yup.string().nullable().defined(),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'GovernanceMember' });

export const organSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    kind: yup.string().oneOf(organKinds).required(),
    name: yup.string().required(),
    description: yup.string().defined(),
    current_members: yup
      .array(memberSchema)
      .required()
      .meta({ description: 'Serving members, in order of precedence.' }),
    created_at: timestampResponse(),
    updated_at: timestampResponse(),
  })
  .meta({ component: 'GovernanceOrgan' });

export function serializeMember(member: GovernanceMember) {
  return {
    id: member.id,
    organ: member.organId,
    full_name: member.fullName,
    office: member.office,
    member_number: member.memberNumber,
    term_start: member.termStart,
    term_end: member.termEnd,
    ended_reason: member.endedReason,
    created_at: member.createdAt.toISOString(),
    updated_at: member.updatedAt.toISOString(),
  };
}

/** An organ as answered, with its serving members. */
export function serializeOrgan({ organ, members }: OrganWithMembers) {
  return {
    id: organ.id,
    enterprise: organ.enterpriseId,
    kind: organ.kind,
    name: organ.name,
    description: organ.description,
    current_members: members.map(serializeMember),
    created_at: organ.createdAt.toISOString(),
    updated_at: organ.updatedAt.toISOString(),
  };
}
