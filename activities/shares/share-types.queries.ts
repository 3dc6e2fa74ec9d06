import type { Knex } from 'knex';
import { ShareType } from '../../db/models/share-type.model';

/** The reads of share types. */

export const shareTypesQuery = (knex: Knex) => ShareType.query(knex);

export const shareTypeById = async (knex: Knex, id: string) => ShareType.query(knex).findById(id);
