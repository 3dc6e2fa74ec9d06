import type { Role } from '../access';
import { coverOf, type GuaranteeKind } from './provisioning';

/**
 * Four eyes on the guarantees that can lower a provision (docs/domain.md §4; COBAC R-2017/06 Art. 5, segregation of
 * duties): adding or ending a covering guarantee (any but a personal guarantor, which covers nothing) is asked by a
 * branch head or above, and takes effect only once a second person approves its request (`guarantee.change` in the
 * approval policy, docs/domain.md §11).
 */
export const guaranteeCheckers: readonly Role[] = ['branch_head', 'direction', 'admin'];

/** Whether a change to a guarantee of this kind needs a second person: it can lower the loan's provision. */
export const needsConfirmation = (kind: GuaranteeKind): boolean => coverOf(kind) !== 'none';
