import type { Knex } from 'knex';
import type { QueryBuilder } from 'objection';
import { ClientProfile } from '../../db/models/client-profile.model';

/** The reads of members (client profiles). */

export const clientProfilesQuery = (knex: Knex) => ClientProfile.query(knex);

export const clientProfileById = async (knex: Knex, id: string) => ClientProfile.query(knex).findById(id);

/** Only the members with `search` in a name or in their member number. */
export function whereClientMatches(builder: QueryBuilder<ClientProfile, ClientProfile[]>, search: string): void {
  const pattern = `%${search}%`;
  builder.where((b) =>
    b
      .whereILike('first_name', pattern)
      .orWhereILike('last_name', pattern)
      .orWhereILike('legal_name', pattern)
      .orWhereILike('member_number', pattern),
  );
}
