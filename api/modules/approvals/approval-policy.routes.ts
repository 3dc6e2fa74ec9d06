import * as yup from 'yup';
import { approvalPolicyOf, setApprovalPolicy } from '../../../activities/approvals/approval-policy.activity';
import { enterpriseById } from '../../../activities/enterprise/enterprises.queries';
import { roles } from '../../../domain/access';
import { approvalOperations, rulesLiftingFourEyes, type PolicyRule } from '../../../domain/approvals/policy';
import type { Scope } from '../../../domain/access';
import { AppError, NotFoundError } from '../../../domain/errors';
import type { RouteDeps } from '../../deps';
import { defineRoute } from '../../route';
import { amountSchema } from '../money.schemas';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from './four-eyes';

const policyRuleSchema = yup.object({
  operation: yup.string().oneOf(approvalOperations).required(),
  four_eyes: yup.boolean().strict(true).required(),
  approver_roles: yup.array(yup.string().oneOf(roles).required()).min(1).max(roles.length).required(),
  threshold: amountSchema()
    .nullable()
    .defined()
    .meta({ description: 'Under this amount the operation runs at once; null: any amount.' }),
  lifetime_days: yup
    .number()
    .strict(true)
    .integer()
    .min(1)
    .max(90)
    .required()
    .meta({ description: 'Days a request waits for its decision before it expires.' }),
});

const policySchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    rules: yup.array(policyRuleSchema).required(),
  })
  .meta({ component: 'ApprovalPolicy' });

const serializePolicy = (enterpriseId: string, rules: readonly PolicyRule[]) => ({
  enterprise: enterpriseId,
  rules: rules.map((rule) => ({
    operation: rule.operation,
    four_eyes: rule.fourEyes,
    approver_roles: rule.approverRoles,
    threshold: rule.threshold,
    lifetime_days: rule.lifetimeDays,
  })),
});

const policyPath = '/api/v1/enterprise/enterprises/{enterprise_pk}/approval-policy/';

/** The path's enterprise, seen by the caller (their route's roles checked there) and existing: else 404. */
async function pathEnterprise(input: {
  params: { enterprise_pk: string };
  deps: RouteDeps;
  authorize: (scope: Scope, what: string) => void;
}): Promise<string> {
  const enterpriseId = input.params.enterprise_pk;
  input.authorize({ enterpriseId }, 'The enterprise');
  if ((await enterpriseById(input.deps.knex, enterpriseId)) === undefined) throw new NotFoundError('The enterprise');
  return enterpriseId;
}
const nestedParams = yup.object({ enterprise_pk: yup.string().uuid().required() });

/**
 * Each enterprise's four-eyes policy (docs/domain.md §11): read by its staff, set by its administrators under four
 * eyes.
 */
export const approvalPolicyRoutes = [
  defineRoute({
    method: 'get',
    path: policyPath,
    module: 'approvals',
    operationId: 'getApprovalPolicy',
    summary:
      "The enterprise's four-eyes policy: per operation, whether a second person approves it, holding which role",
    access: 'authenticated',
    params: nestedParams,
    response: policySchema,
    errorStatuses: [401, 404],
    handler: async (input) => {
      const enterpriseId = await pathEnterprise(input);
      return serializePolicy(enterpriseId, await approvalPolicyOf(input.deps.knex, enterpriseId));
    },
  }),
  defineRoute({
    method: 'put',
    path: policyPath,
    module: 'approvals',
    operationId: 'setApprovalPolicy',
    summary:
      "Set the enterprise's four-eyes policy (administrators); an operation left out keeps its default. " +
      'Itself under four eyes by default',
    access: ['admin'],
    params: nestedParams,
    body: yup.object({
      rules: yup
        .array(policyRuleSchema)
        .max(approvalOperations.length)
        .required()
        .test(
          'one-per-operation',
          'rules name each operation once',
          (rules) => new Set(rules.map((rule) => rule.operation)).size === rules.length,
        ),
    }),
    response: policySchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 422],
    refusals: [...fourEyesRefusals, 'approval_always_four_eyes'],
    handler: async (input) => {
      const { body, principal, deps, ctx } = input;
      const enterpriseId = await pathEnterprise(input);
      const lifting = rulesLiftingFourEyes(
        body.rules.map((rule) => ({ operation: rule.operation, fourEyes: rule.four_eyes })),
      );
      if (lifting >= 0) {
        throw new AppError(
          'unprocessable',
          'approval_always_four_eyes',
          `${body.rules[lifting]!.operation} is always approved by a second person.`,
          [{ field: `rules[${lifting}].four_eyes`, message: 'must be true' }],
        );
      }
      const rules: PolicyRule[] = body.rules.map((rule) => ({
        operation: rule.operation,
        fourEyes: rule.four_eyes,
        approverRoles: rule.approver_roles,
        threshold: rule.threshold,
        lifetimeDays: rule.lifetime_days,
      }));
      const changed = await runOrRequest(
        { deps, principal, ctx },
        {
          operation: 'approval_policy.change',
          payload: { enterpriseId, rules },
          scope: { enterpriseId },
          summary: `Change the four-eyes policy (${rules.length} operation(s))`,
        },
        () => setApprovalPolicy(deps.activities, principal, { enterpriseId, rules }),
      );
      return Array.isArray(changed) ? serializePolicy(enterpriseId, changed) : changed;
    },
  }),
];
