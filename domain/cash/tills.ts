/**
 * Tills and the vault (issue 29, docs/domain.md §13.1): which accounts of the chart hold a branch's cash.
 */

/**
 * The vault of a branch is its 5710 Caisse FCFA: entries carry their branch, so 5710 of branch B is B's vault.
 * 5710 stays a leaf, the accounting rules post the `cash` role to it.
 */
export const vaultAccount = '5710';

/**
 * The tills' own accounts are sub-accounts of 5712 "Caisses des guichets", which the product adds under 571
 * Billets et monnaies beside the plan's 5710 and 5711 (Caisse devises, foreign cash): sub-accounts extend leaves,
 * and neither of those may be one's parent.
 */
export const tillsParentAccount = { code: '5712', label: 'Caisses des guichets', parentCode: '571' } as const;
