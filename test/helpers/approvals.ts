import type { Knex } from 'knex';
import { decideApprovalRequest } from '../../activities/approvals/approval-request.activity';
import type { Role } from '../../domain/access';
import type { TestResponse } from './app';
import { testClock } from './clock';
import { createUser } from './users';

/**
 * Four eyes in the tests' fixtures (docs/architecture.md §7): a sensitive change through its route answers 202
 * with a request, which a second user approves. Fixtures that run no worker approve as the request's workflow
 * would on that user's Update: the workflow's own activity, which runs the operation and records the approval
 * (as `approvedLoan` records a loan's final decision). The tests of the control itself go through the API and
 * the workflow (test/api/approvals.test.ts). `answer` is the route's; its 202 is approved, anything else returned.
 * `now`: the test app's clock, when it has its own.
 */
export async function approveRequest(
  knex: Knex,
  answer: TestResponse,
  approver: { id: string; roles: readonly Role[] },
  now = testClock(),
): Promise<TestResponse> {
  if (answer.status !== 202) return answer;
  const decided = await decideApprovalRequest(knex, now, {
    requestId: answer.body.id as string,
    decision: {
      decision: 'approve',
      deciderId: approver.id,
      deciderRoles: approver.roles,
      reason: 'second pair of eyes (test)',
      requestId: null,
    },
  });
  if ('outcome' in decided) throw new Error(`approval refused: ${decided.code} ${decided.message}`);
  if (decided.status !== 'approved')
    throw new Error(`the approved operation failed: ${JSON.stringify(decided.failure)}`);
  return { ...answer, status: 200 };
}

let secondAdmins = 0;

/** Another administrator of the world's enterprise, for a change its platform administrator asks (a reopening). */
export async function secondAdmin(
  knex: Knex,
  world: { enterpriseId: string },
): Promise<{ id: string; roles: readonly Role[] }> {
  const username = `second_admin_${world.enterpriseId.slice(0, 8)}_${(secondAdmins += 1)}`;
  return {
    id: await createUser(knex, username, [{ role: 'admin', enterpriseId: world.enterpriseId, branchId: null }]),
    roles: ['admin'],
  };
}
