import type { Knex } from 'knex';
import { Branch } from '../../db/models/branch.model';

/** The reads of branches. */

export const branchesQuery = (knex: Knex) => Branch.query(knex);

export const branchById = async (knex: Knex, id: string) => Branch.query(knex).findById(id);
