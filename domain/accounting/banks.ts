/**
 * Banks and correspondents (issue 28, docs/domain.md §12.6). Pure rules: under which accounts of the chart a bank
 * account is opened, and its code.
 */

/**
 * The PCEMF's leaves of 560 « Comptes à vue nostri » (the cooperative's demand accounts at its correspondents):
 * a bank account is a sub-account of one of them. 5609 (EMF) is not a leaf: its leaves 56090 and 56099 are.
 */
export const bankParentAccounts = ['5600', '5601', '5602', '5603', '5604', '5605', '5606', '5607', '5608', '56090', '56099'] as const;

/** Most cooperatives bank with commercial banks outside their network: 5603, banques non associées. */
export const defaultBankParentAccount = '5603';

export const isBankParentAccount = (code: string): boolean => (bankParentAccounts as readonly string[]).includes(code);

/** Three digits after the parent, as any sub-account of the chart (001 to 999). */
const subAccountNumberMax = 999;

/**
 * The next free sub-account of `parent` (`5603001`, `5603002`…), after the highest taken, or null once the 999
 * are taken. Codes of another length under the parent are not numbered so and are skipped.
 */
export function nextSubAccountCode(parent: string, taken: readonly string[]): string | null {
  const numbers = taken.filter((code) => code.startsWith(parent) && code.length === parent.length + 3).map((code) => Number(code.slice(parent.length)));
  const next = numbers.reduce((max, number) => Math.max(max, number), 0) + 1;
  return next > subAccountNumberMax ? null : `${parent}${String(next).padStart(3, '0')}`;
}
