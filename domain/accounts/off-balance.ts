import type { JournalLine } from '../events/journal';
import type { GuaranteeKind } from '../loans/provisioning';
import { Money } from '../money';
import type { AccountBalance } from './statements';

/**
 * Off-balance engagements (PCEMF class 9, docs/domain.md §12.2): which accounts the product posts, on which side,
 * and how the off-balance statement groups them. Each engagement account has its general counterpart in 99x, so an
 * entry of class 9 balances within class 9 (the database refuses it mixed with the other classes).
 *
 * Sides (COBAC PCEC, class 9 commentary: an engagement received is credited to its account « par le débit du compte
 * 99x »): a commitment given debits its account and credits the counterpart; a guarantee received credits its account
 * and debits the counterpart; the interest suspended on a doubtful loan (9841, a product to recover) is followed as a
 * claim, debited (NOT FOUND in the sources for 984: our policy, the side of the receivable it stands for).
 */

export type OffBalanceKind = 'commitment_given' | 'guarantee_received' | 'suspended_interest';

export interface OffBalancePair {
  kind: OffBalanceKind;
  /** The engagement's account (922, 9311…). */
  account: string;
  /** Its general counterpart (9922, 9931…). */
  counterpart: string;
  /** The side the engagement account takes when the engagement rises. */
  rises: 'debit' | 'credit';
}

/** 922 accords de financement donnés à la clientèle / 9922: a loan approved and not yet paid out. */
export const financingCommitment: OffBalancePair = {
  kind: 'commitment_given',
  account: '922',
  counterpart: '9922',
  rises: 'debit',
};

/** 9841 intérêts sur créances en souffrance / 9984: interest of a doubtful loan not taken to income (R-2017/07). */
export const suspendedInterest: OffBalancePair = {
  kind: 'suspended_interest',
  account: '9841',
  counterpart: '9984',
  rises: 'debit',
};

/**
 * The account of each kind of guarantee received: 9311 hypothèques fermes / 9931, 9321 nantissement de dépôts (garantie
 * de crédits par caisse) / 9932, 933 gages (a pledge of equipment) / 9933, 934 avals et cautions / 9934, 913
 * contre-garanties des correspondants sur crédits par caisse (a bank is a correspondent) / 9913, 961 garanties reçues
 * de l'État / 9961.
 */
export const guaranteeReceived: Readonly<Record<GuaranteeKind, OffBalancePair>> = {
  mortgage: { kind: 'guarantee_received', account: '9311', counterpart: '9931', rises: 'credit' },
  equipment_pledge: { kind: 'guarantee_received', account: '933', counterpart: '9933', rises: 'credit' },
  pledged_deposit: { kind: 'guarantee_received', account: '9321', counterpart: '9932', rises: 'credit' },
  personal_guarantor: { kind: 'guarantee_received', account: '934', counterpart: '9934', rises: 'credit' },
  bank_guarantee: { kind: 'guarantee_received', account: '913', counterpart: '9913', rises: 'credit' },
  public_guarantee: { kind: 'guarantee_received', account: '961', counterpart: '9961', rises: 'credit' },
};

const zero = new Money(0);

/** The two lines that move an engagement by `change` (positive: it rises; negative: it is released). */
export function engagementLines(pair: OffBalancePair, change: Money): JournalLine[] {
  const debitsAccount = (pair.rises === 'debit') === change.isPositive();
  const amount = change.abs();
  const line = (account: string, debit: boolean): JournalLine => ({
    account,
    debit: debit ? amount : zero,
    credit: debit ? zero : amount,
  });
  return [line(pair.account, debitsAccount), line(pair.counterpart, !debitsAccount)];
}

export interface EngagementChange {
  pair: OffBalancePair;
  /** Target minus held: what to post. */
  change: Money;
}

const keyOf = (pair: OffBalancePair) => `${pair.kind}:${pair.account}:${pair.counterpart}`;

/**
 * What to post to bring a loan's engagements from what the books hold to what they should be: one change per pair
 * whose target differs. A pair held but no longer targeted is released whole.
 */
export function engagementChanges(
  targets: readonly { pair: OffBalancePair; amount: Money }[],
  held: readonly { pair: OffBalancePair; amount: Money }[],
): EngagementChange[] {
  const sums = new Map<string, { pair: OffBalancePair; target: Money; held: Money }>();
  const add = (pair: OffBalancePair, field: 'target' | 'held', amount: Money) => {
    const sum = sums.get(keyOf(pair)) ?? { pair, target: zero, held: zero };
    sums.set(keyOf(pair), { ...sum, [field]: sum[field].plus(amount) });
  };
  for (const row of targets) add(row.pair, 'target', row.amount);
  for (const row of held) add(row.pair, 'held', row.amount);
  return [...sums.values()]
    .filter((sum) => !sum.target.eq(sum.held))
    .map((sum) => ({ pair: sum.pair, change: sum.target.minus(sum.held) }));
}

/** The sections of the off-balance statement, by PCEMF group; the general counterparts (99) are its check. */
const sections = [
  { key: 'given', label: 'Engagements donnés', prefixes: ['90', '92', '941'], reading: 'debit' },
  { key: 'received', label: 'Engagements reçus', prefixes: ['91', '93', '942', '95', '96'], reading: 'credit' },
  { key: 'doubtful', label: 'Engagements douteux et produits à recouvrer', prefixes: ['98'], reading: 'debit' },
] as const;

export type OffBalanceSectionKey = (typeof sections)[number]['key'];

export interface OffBalanceSection {
  key: OffBalanceSectionKey;
  label: string;
  accounts: { account: string; amount: Money }[];
  total: Money;
}

/**
 * The off-balance statement of class 9 balances (debit minus credit) at a date: each section's accounts with their
 * amounts as the section reads them (a given engagement's debit, a received one's credit), and whether class 9
 * nets to zero with its counterparts, as its entries make it.
 */
export function offBalanceStatement(balances: readonly AccountBalance[]): {
  sections: OffBalanceSection[];
  balanced: boolean;
} {
  const rows = balances.filter((row) => row.account.startsWith('9') && !row.balance.isZero());
  const result = sections.map((section) => {
    const accounts = rows
      .filter((row) => section.prefixes.some((prefix) => row.account.startsWith(prefix)))
      .map((row) => ({
        account: row.account,
        amount: section.reading === 'debit' ? row.balance : row.balance.negated(),
      }))
      .sort((a, b) => a.account.localeCompare(b.account));
    return {
      key: section.key,
      label: section.label,
      accounts,
      total: accounts.reduce((sum, row) => sum.plus(row.amount), zero),
    };
  });
  return { sections: result, balanced: rows.reduce((sum, row) => sum.plus(row.balance), zero).isZero() };
}
