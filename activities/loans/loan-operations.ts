import type { Knex } from 'knex';

/**
 * A loan operation's rows `r` (its recoveries, its restructurings) joined to their loan `l`, led by the columns
 * they share: ids, enterprise, branch, loan and the loan's number. The caller selects the rest.
 */
export const loanOperationsQuery = (knex: Knex, table: 'loan_recoveries' | 'loan_restructurings') =>
  knex(`${table} as r`)
    .join('loans as l', 'l.id', 'r.loan_id')
    .select('r.id', 'r.enterprise_id', 'r.branch_id', 'r.loan_id', 'l.number as loan_number');
