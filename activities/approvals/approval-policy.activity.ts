import type { Knex } from 'knex';
import type { Role } from '../../domain/access';
import { effectivePolicy, type ApprovalOperation, type PolicyRule } from '../../domain/approvals/policy';
import { inTransaction } from '../../db/transaction';
import { recordAudit } from '../audit';
import type { Actor, DataContext } from '../context';

interface PolicyRow {
  operation: ApprovalOperation;
  four_eyes: boolean;
  approver_roles: Role[];
  threshold: string | null;
  lifetime_days: number;
}

/** An enterprise's four-eyes policy: its own lines over the default (domain/approvals/policy.ts). */
export async function approvalPolicyOf(knex: Knex | Knex.Transaction, enterpriseId: string): Promise<PolicyRule[]> {
  const rows = (await knex('approval_policies')
    .where({ enterprise_id: enterpriseId })
    .select('operation', 'four_eyes', 'approver_roles', 'threshold', 'lifetime_days')) as PolicyRow[];
  return effectivePolicy(
    rows.map((row) => ({
      operation: row.operation,
      fourEyes: row.four_eyes,
      approverRoles: row.approver_roles,
      threshold: row.threshold,
      lifetimeDays: row.lifetime_days,
    })),
  );
}

/** Replaces the enterprise's lines with those given (an operation left out goes back to the default). */
export async function setApprovalPolicy(
  context: DataContext,
  actor: Actor,
  input: { enterpriseId: string; rules: PolicyRule[] },
): Promise<PolicyRule[]> {
  return inTransaction(context.knex, async (trx) => {
    await trx('approval_policies').where({ enterprise_id: input.enterpriseId }).delete();
    if (input.rules.length > 0) {
      await trx('approval_policies').insert(
        input.rules.map((rule) => ({
          enterprise_id: input.enterpriseId,
          operation: rule.operation,
          four_eyes: rule.fourEyes,
          approver_roles: rule.approverRoles,
          threshold: rule.threshold,
          lifetime_days: rule.lifetimeDays,
          updated_by: actor.userId,
          updated_at: context.clock(),
        })),
      );
    }
    await recordAudit(trx, actor, {
      action: 'approval_policy.change',
      entityType: 'approval_policy',
      entityId: input.enterpriseId,
      enterpriseId: input.enterpriseId,
      details: { rules: input.rules },
    });
    return approvalPolicyOf(trx, input.enterpriseId);
  });
}
