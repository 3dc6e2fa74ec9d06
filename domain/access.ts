/**
 * Who may act where. Pure rules over a user's active grants, so the API, the activities and the workflows
 * (the approval circuit) decide alike. Grants are read from the database on every request, never from a
 * token: a role revoked a second ago is gone now.
 */
export const roles = [
  'cashier',
  'branch_head',
  'credit_committee',
  'direction',
  'admin',
  'auditor',
  'accountant',
] as const;
export type Role = (typeof roles)[number];

export interface Grant {
  role: Role;
  /** null: every enterprise (administrators of the platform only). */
  enterpriseId: string | null;
  /** null: the whole enterprise. */
  branchId: string | null;
}

/** Where an action applies: an enterprise, and a branch when the resource belongs to one. */
export interface Scope {
  enterpriseId: string;
  branchId?: string | null;
}

export function isPlatformAdmin(grants: readonly Grant[]): boolean {
  return grants.some((grant) => grant.role === 'admin' && grant.enterpriseId === null);
}

function covers(grant: Grant, scope: Scope): boolean {
  if (grant.enterpriseId === null) return true;
  if (grant.enterpriseId !== scope.enterpriseId) return false;
  if (grant.branchId === null) return true;
  // A branch grant acts in its branch only, never on the enterprise itself.
  return scope.branchId !== undefined && scope.branchId !== null && grant.branchId === scope.branchId;
}

/**
 * True when one of `allowed` is held at `scope`: platform-wide, enterprise-wide in its enterprise, or in its
 * very branch. A branch grant does not reach enterprise-level resources (scope without branch).
 */
export function holdsRole(grants: readonly Grant[], allowed: readonly Role[], scope: Scope): boolean {
  return grants.some((grant) => allowed.includes(grant.role) && covers(grant, scope));
}

/** True when the user holds any role in the enterprise, or in the branch when one is given: may read it. */
export function canSee(grants: readonly Grant[], scope: Scope): boolean {
  return grants.some((grant) => {
    if (grant.enterpriseId === null) return true;
    if (grant.enterpriseId !== scope.enterpriseId) return false;
    if (grant.branchId === null || scope.branchId === undefined || scope.branchId === null) return true;
    return grant.branchId === scope.branchId;
  });
}

/** What a list may show: every enterprise (`all`), or these enterprises, each whole or limited to branches. */
export type Visibility =
  | { all: true }
  | { all: false; enterprises: ReadonlyMap<string, { wholeEnterprise: boolean; branchIds: ReadonlySet<string> }> };

export function visibility(grants: readonly Grant[]): Visibility {
  if (isPlatformAdmin(grants)) return { all: true };
  const enterprises = new Map<string, { wholeEnterprise: boolean; branchIds: Set<string> }>();
  for (const grant of grants) {
    if (grant.enterpriseId === null) continue;
    const entry = enterprises.get(grant.enterpriseId) ?? { wholeEnterprise: false, branchIds: new Set<string>() };
    if (grant.branchId === null) entry.wholeEnterprise = true;
    else entry.branchIds.add(grant.branchId);
    enterprises.set(grant.enterpriseId, entry);
  }
  return { all: false, enterprises };
}
