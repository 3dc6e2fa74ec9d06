import type { Knex } from 'knex';
import { EnterpriseConfiguration } from '../../db/models/enterprise-configuration.model';

/** The reads of the enterprises' configurations. */

export const configurationsQuery = (knex: Knex) => EnterpriseConfiguration.query(knex);

/** An enterprise's configuration; undefined when there is no such enterprise. */
export const configurationOf = async (knex: Knex, enterpriseId: string) =>
  EnterpriseConfiguration.query(knex).findOne({ enterprise_id: enterpriseId });
