/**
 * True when a PATCH sent no field: nothing is written and nothing audited (and PostgreSQL would refuse an
 * UPDATE without columns).
 */
export function hasNoChanges(changes: object): boolean {
  return Object.values(changes).every((value) => value === undefined);
}
