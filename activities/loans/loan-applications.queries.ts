import type { Knex } from 'knex';
import { raw, type QueryBuilder } from 'objection';
import { LoanApplication } from '../../db/models/loan-application.model';

/** What an application's answer adds to its row: its decision history and the loan it became. */
export interface ApplicationHistory {
  decisionHistory: { step: string; decision: string; comment: string; decided_by: string; decided_at: string }[];
  loan: { id: string; number: string } | null;
}

export type ApplicationRow = LoanApplication & ApplicationHistory;

/**
 * The history and the loan as correlated subqueries of the application's own statement: an answer, a page
 * included, is one read (the decisions come back ordered, as JSON).
 */
export const withHistory = <Q extends QueryBuilder<LoanApplication, LoanApplication[] | LoanApplication | undefined>>(
  builder: Q,
): Q =>
  builder.select(
    'loan_applications.*',
    raw(`coalesce((SELECT json_agg(json_build_object('step', d.step, 'decision', d.decision, 'comment', d.comment,
      'decided_by', d.decided_by, 'decided_at', d.decided_at)
      ORDER BY d.decided_at) FROM loan_application_decisions d WHERE d.application_id = loan_applications.id),
        '[]') AS decision_history`),
    raw(
      `(SELECT json_build_object('id', l.id, 'number', l.number) FROM loans l
        WHERE l.application_id = loan_applications.id) AS loan`,
    ),
  );

/** One application with its history, as it is now (after a decision: what the workflow's activity committed). */
export const readApplication = async (knex: Knex, id: string) =>
  (await withHistory(LoanApplication.query(knex).findById(id))) as ApplicationRow | undefined;
