import type { Knex } from 'knex';
import { CooperativeProfile } from '../../db/models/cooperative-profile.model';

/** An enterprise's cooperative profile; undefined when it has none. */
export const profileOf = async (knex: Knex, enterpriseId: string) =>
  CooperativeProfile.query(knex).findOne({ enterprise_id: enterpriseId });
