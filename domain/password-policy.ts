import type { FieldError } from './errors';

const passwordLengthMin = 10;
export const passwordLengthMax = 200;

/**
 * The minimum password policy: long enough, not only digits (a phone or ID number), not the username.
 * Returns the problems found, empty when the password is acceptable.
 */
export function passwordProblems(password: string, username: string): FieldError[] {
  const problems: string[] = [];
  if (password.length < passwordLengthMin)
    problems.push(`password must be at least ${passwordLengthMin} characters long`);
  if (password.length > passwordLengthMax)
    problems.push(`password must be at most ${passwordLengthMax} characters long`);
  if (/^\d+$/.test(password)) problems.push('password must not be only digits');
  if (password.toLowerCase().includes(username.toLowerCase())) problems.push('password must not contain the username');
  return problems.map((message) => ({ field: 'password', message }));
}
