import type { Knex } from 'knex';
import { GovernanceMember, offices } from '../../db/models/governance-member.model';
import { GovernanceOrgan } from '../../db/models/governance-organ.model';

/** The reads of the governance organs and their mandates. */

/** An organ with its serving members, in order of precedence of their offices, then by name. */
export interface OrganWithMembers {
  organ: GovernanceOrgan;
  members: GovernanceMember[];
}

export const organsQuery = (knex: Knex) => GovernanceOrgan.query(knex);

export const organById = async (knex: Knex, id: string) => GovernanceOrgan.query(knex).findById(id);

export const mandateById = async (knex: Knex, id: string) => GovernanceMember.query(knex).findById(id);

/** An organ's mandates, serving and past. */
export const mandatesQuery = (knex: Knex, organId: string) => GovernanceMember.query(knex).where('organ_id', organId);

/** The organs each with its serving members, in one query. */
export async function withCurrentMembers(knex: Knex, organs: readonly GovernanceOrgan[]): Promise<OrganWithMembers[]> {
  const members = await GovernanceMember.query(knex)
    .whereIn(
      'organ_id',
      organs.map((organ) => organ.id),
    )
    .whereNull('term_end')
    .orderBy('full_name');
  members.sort((a, b) => offices.indexOf(a.office) - offices.indexOf(b.office)); // a stable sort: names stay ordered
  return organs.map((organ) => ({ organ, members: members.filter((member) => member.organId === organ.id) }));
}

/** One organ with its serving members. */
export const organWithMembers = async (knex: Knex, organ: GovernanceOrgan) =>
  (await withCurrentMembers(knex, [organ]))[0]!;
