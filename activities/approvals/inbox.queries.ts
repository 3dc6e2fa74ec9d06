import type { Knex } from 'knex';
import type { Grant, Role } from '../../domain/access';

/**
 * The approver's inbox (`GET /api/v1/approvals/pending/`): what awaits the signed-in user's decision across
 * modules, each source filtered in SQL by the roles the user holds where its item lies: loan applications at a
 * step the user's role decides (not their own, not one they already decided a step of), share withdrawals whose
 * refund is owed (a teller's), and four-eyes requests of another maker naming one of their roles.
 */

export const inboxKinds = ['approval_request', 'loan_application', 'share_withdrawal'] as const;

/** Whose inbox: the user, their grants, and those of their grants that pay at the counter (a teller's). */
export interface Approver {
  userId: string;
  grants: readonly Grant[];
  tellerGrants: readonly Grant[];
}

interface Located {
  enterprise: string;
  branch: string;
}

/**
 * `(role matches) AND (where the grant reaches)`, OR-ed over the grants: what holdsRole (domain/access.ts) says,
 * in SQL. `role` is an SQL expression compared with each grant's role (`? = ANY(r.approver_roles)`…).
 */
function heldWhere(
  builder: Knex.QueryBuilder,
  grants: readonly Grant[],
  columns: Located,
  roleClause: (role: Role) => [string, unknown[]],
): Knex.QueryBuilder {
  return builder.where((any) => {
    any.whereRaw('false');
    for (const grant of grants) {
      const [roleSql, roleBindings] = roleClause(grant.role);
      any.orWhere((one) => {
        one.whereRaw(roleSql, roleBindings as readonly string[]);
        if (grant.enterpriseId !== null) one.where(columns.enterprise, grant.enterpriseId);
        if (grant.enterpriseId !== null && grant.branchId !== null) one.where(columns.branch, grant.branchId);
      });
    }
  });
}

function pendingRequests(knex: Knex, principal: Approver): Knex.QueryBuilder {
  // Not the requests the principal made, nor those deciding a thing they made (a draft they wrote).
  const rows = knex('approval_requests as r')
    .where('r.status', 'pending')
    .whereRaw('NOT (?::uuid = ANY (r.makers))', [principal.userId])
    .select(
      knex.raw(`'approval_request' AS kind`),
      'r.id',
      'r.enterprise_id AS enterprise',
      'r.branch_id AS branch',
      'r.summary',
      knex.raw(`'approve or reject' AS decision`),
      knex.raw(`'/api/v1/approvals/requests/' || r.id || '/' AS path`),
      'r.created_at AS since',
    );
  return heldWhere(rows, principal.grants, { enterprise: 'r.enterprise_id', branch: 'r.branch_id' }, (role) => [
    '? = ANY(r.approver_roles)',
    [role],
  ]);
}

function applicationsAtStep(knex: Knex, principal: Approver): Knex.QueryBuilder {
  const rows = knex('loan_applications as a')
    .where('a.status', 'in_review')
    .whereNot('a.submitted_by', principal.userId)
    // One person decides one step of an application (domain/loans/approval.ts).
    .whereNotExists(
      knex('loan_application_decisions as d')
        .whereRaw('d.application_id = a.id')
        .where('d.decided_by', principal.userId),
    )
    .select(
      knex.raw(`'loan_application' AS kind`),
      'a.id',
      'a.enterprise_id AS enterprise',
      'a.branch_id AS branch',
      knex.raw(`'Loan application ' || a.number || ': ' || a.amount::text || ' XAF' AS summary`),
      'a.current_step AS decision',
      knex.raw(`'/api/v1/loans/applications/' || a.id || '/' AS path`),
      'a.created_at AS since',
    );
  return heldWhere(rows, principal.grants, { enterprise: 'a.enterprise_id', branch: 'a.branch_id' }, (role) => [
    'a.current_step = ?',
    [role],
  ]);
}

function refundsOwed(knex: Knex, principal: Approver): Knex.QueryBuilder {
  const rows = knex('share_withdrawals as w')
    .where('w.status', 'effective')
    .select(
      knex.raw(`'share_withdrawal' AS kind`),
      'w.id',
      'w.enterprise_id AS enterprise',
      'w.branch_id AS branch',
      knex.raw(
        `'Share refund of withdrawal ' || w.number || ' due ' || to_char(w.refund_due_on, 'YYYY-MM-DD') AS summary`,
      ),
      knex.raw(`'refund' AS decision`),
      knex.raw(`'/api/v1/shares/withdrawals/' || w.id || '/' AS path`),
      'w.created_at AS since',
    );
  return heldWhere(rows, principal.tellerGrants, { enterprise: 'w.enterprise_id', branch: 'w.branch_id' }, () => [
    'true',
    [],
  ]);
}

/** Every item awaiting the principal, newest first (then by id, for stable pages); `enterprise` narrows it. */
export function inboxQuery(
  knex: Knex,
  principal: Approver,
  filters: { enterprise?: string; kind?: (typeof inboxKinds)[number] },
): Knex.QueryBuilder {
  const sources = {
    approval_request: pendingRequests,
    loan_application: applicationsAtStep,
    share_withdrawal: refundsOwed,
  };
  const chosen = filters.kind === undefined ? Object.values(sources) : [sources[filters.kind]];
  const union = knex.unionAll(
    chosen.map((source) => source(knex, principal)),
    true,
  );
  const rows = knex.select('*').from(union.as('inbox'));
  if (filters.enterprise !== undefined) rows.where('enterprise', filters.enterprise);
  return rows.orderBy([
    { column: 'since', order: 'desc' },
    { column: 'id', order: 'asc' },
  ]);
}
