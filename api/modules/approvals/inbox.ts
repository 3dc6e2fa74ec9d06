import * as yup from 'yup';
import { inboxKinds, type Approver } from '../../../activities/approvals/inbox.queries';
import type { Role } from '../../../domain/access';
import type { Principal } from '../../auth/principal';
import { timestampResponse, nullableId } from '../common.schemas';
import { tellers } from '../money.schemas';

/** The approver's inbox (`GET /api/v1/approvals/pending/`, its reads in activities/approvals/inbox.queries.ts). */

export const inboxItemSchema = yup
  .object({
    kind: yup.string().oneOf(inboxKinds).required(),
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    branch: nullableId(),
    summary: yup.string().required(),
    decision: yup.string().required().meta({
      description:
        'What is to decide: approve or reject (a request), the step (an application), refund (a withdrawal).',
    }),
    path: yup.string().required().meta({ description: "The item's detail, whose routes take the decision." }),
    since: timestampResponse().meta({ description: 'Waiting since: the newest first.' }),
  })
  .meta({ component: 'InboxItem' });

/** The principal as the inbox reads them: a share refund is a teller's. */
export const approverOf = (principal: Principal): Approver => ({
  userId: principal.userId,
  grants: principal.grants,
  tellerGrants: principal.grants.filter((grant) => (tellers as readonly Role[]).includes(grant.role)),
});
