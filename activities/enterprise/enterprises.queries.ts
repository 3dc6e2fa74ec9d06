import type { Knex } from 'knex';
import { Enterprise } from '../../db/models/enterprise.model';

/** The reads of enterprises. */

export const enterprisesQuery = (knex: Knex) => Enterprise.query(knex);

export const enterpriseById = async (knex: Knex, id: string) => Enterprise.query(knex).findById(id);
