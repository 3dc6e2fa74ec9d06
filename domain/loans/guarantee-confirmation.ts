import type { Role } from '../access';
import { AppError } from '../errors';
import { coverOf, type GuaranteeKind } from './provisioning';

/**
 * Four eyes on the guarantees that can lower a provision (docs/domain.md §4; COBAC R-2017/06 Art. 5, segregation of
 * duties): adding or ending a covering guarantee (any but a personal guarantor, which covers nothing) is asked by a
 * branch head or above, and takes effect only once a different user of that level confirms it. Small and
 * self-contained on purpose: a later generic maker/checker mechanism absorbs it (docs/architecture.md).
 */
export const guaranteeCheckers: readonly Role[] = ['branch_head', 'direction', 'admin'];

/** Whether a change to a guarantee of this kind needs a second person: it can lower the loan's provision. */
export const needsConfirmation = (kind: GuaranteeKind): boolean => coverOf(kind) !== 'none';

export type GuaranteeChange = 'add' | 'end';

/** The maker never decides their own request, either way. */
export function assertOtherPerson(requestedBy: string, checker: string): void {
  if (requestedBy === checker) {
    throw new AppError('forbidden', 'same_person', 'The change was asked by you: another branch head, the direction or an administrator confirms or refuses it.');
  }
}
