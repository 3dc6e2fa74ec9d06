import type { CellProblem } from './cells';

/**
 * The rules of a branches-users row beyond its cells' formats (docs/domain.md §15.3). Pure. A row names a branch
 * and, if any, one user of it with one role: the username, the full name and the role go together.
 */

type Row = Readonly<Record<string, string>>;

/** What a username is on the platform: stored in lower case (api/modules/auth/auth.schemas.ts says the same). */
const username = /^[a-z0-9._-]{3,150}$/;

/** The roles an import grants at once, as a normal grant does (the cashier's); the others go through four eyes. */
export const rolesGrantedAtOnce: readonly string[] = ['cashier'];

const branchCodeLength = 20;

/**
 * The username a valid name, with a full name and a role, and neither without a username; a branch code as long as the
 * branches keep.
 */
export function branchUserProblems(row: Row): CellProblem[] {
  const name = row.username ?? '';
  const problems: CellProblem[] = [];
  if ((row.branch_code ?? '').length > branchCodeLength)
    problems.push({
      column: 'branch_code',
      value: row.branch_code!,
      problem: `longer than ${branchCodeLength} characters`,
    });
  if (name !== '' && !username.test(name.toLowerCase())) {
    problems.push({
      column: 'username',
      value: name,
      problem: 'not a username: 3 to 150 letters, digits, dots, dashes or underscores',
    });
  }
  for (const column of ['full_name', 'role']) {
    const value = row[column] ?? '';
    if (name !== '' && value === '') problems.push({ column, value, problem: 'required with a username' });
    if (name === '' && value !== '') problems.push({ column, value, problem: 'only with a username' });
  }
  return problems;
}
