import type { Knex } from 'knex';
import type { QueryBuilder } from 'objection';
import { ShareWithdrawal } from '../../db/models/share-withdrawal.model';

/** The reads of share withdrawals: where each one's workflow stands. */

export const withdrawalsQuery = (knex: Knex) => ShareWithdrawal.query(knex);

export const withdrawalById = async (knex: Knex, id: string) => ShareWithdrawal.query(knex).findById(id);

/**
 * Refunds past their due date (true), or every other withdrawal (false): only an effective one waits for its refund.
 */
export const whereRefundOverdue = <Q extends QueryBuilder<ShareWithdrawal, ShareWithdrawal[]>>(
  builder: Q,
  overdue: boolean,
): Q =>
  builder.where((b) =>
    overdue
      ? b.whereNotNull('refund_overdue_at').where('status', 'effective')
      : b.whereNull('refund_overdue_at').orWhereNot('status', 'effective'),
  );
