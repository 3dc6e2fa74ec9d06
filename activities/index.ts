import type { Knex } from 'knex';
import { describeDatabase } from './describe-database.activity';

export interface ActivityDeps {
  knex: Knex;
}

/**
 * The activities the worker registers, bound to their dependencies. Workflows import only the *type* of
 * this factory's result, so no database code enters the workflow sandbox.
 */
export function createActivities(deps: ActivityDeps) {
  return {
    describeDatabase: () => describeDatabase(deps.knex),
  };
}

export type Activities = ReturnType<typeof createActivities>;
