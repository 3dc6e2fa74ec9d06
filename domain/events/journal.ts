import { Money } from '../money';
import { accountOf, type RoleAccounts, type RuleLeg } from './rules';

/**
 * The journals an entry belongs to (the journals table, db/migrations/20261129700000_journals.ts): caisse, banque,
 * opérations diverses, à-nouveaux, and one per kind of automatic posting. A caller names one only where the entry
 * says nothing of it (a closing, an allocation, an accrual's reversal); the posting finds the others.
 */
export type JournalCode = 'CAI' | 'BQ' | 'OD' | 'AN' | 'CLO' | 'AFF' | 'INT' | 'PRV' | 'DAT' | 'HB';

export interface JournalLine {
  /** Account code in the enterprise's chart. */
  account: string;
  debit: Money;
  credit: Money;
}

/**
 * The lines an event of `amount` produces under a rule: each leg debits one account and credits another by
 * the whole amount. Balanced by construction; `assertBalanced` still checks before anything is written, and
 * the database checks again at commit.
 */
export function linesForEvent(
  legs: readonly RuleLeg[],
  amount: Money,
  defaults: RoleAccounts,
  productAccounts: Partial<RoleAccounts> = {},
): JournalLine[] {
  if (!amount.isPositive() || amount.isZero())
    throw new Error(`an event amount must be positive, got ${amount.toString()}`);
  const zero = new Money(0);
  const lines = legs.flatMap((leg) => [
    { account: accountOf(leg.debit, defaults, productAccounts), debit: amount, credit: zero },
    { account: accountOf(leg.credit, defaults, productAccounts), debit: zero, credit: amount },
  ]);
  assertBalanced(lines);
  return lines;
}

/** The lines that cancel `lines`: a correction is a reversing entry, never an edit. */
export function reversalOf(lines: readonly JournalLine[]): JournalLine[] {
  return lines.map((line) => ({ account: line.account, debit: line.credit, credit: line.debit }));
}

export function totals(lines: readonly JournalLine[]): { debit: Money; credit: Money } {
  return {
    debit: lines.reduce((sum, line) => sum.plus(line.debit), new Money(0)),
    credit: lines.reduce((sum, line) => sum.plus(line.credit), new Money(0)),
  };
}

/** A programming error if it fails: every path that builds lines must balance them. */
export function assertBalanced(lines: readonly JournalLine[]): void {
  if (lines.length < 2) throw new Error('a journal entry needs at least two lines');
  const { debit, credit } = totals(lines);
  if (!debit.eq(credit)) throw new Error(`unbalanced entry: debit ${debit.toString()} != credit ${credit.toString()}`);
  for (const line of lines) {
    if (line.debit.isNegative() || line.credit.isNegative() || line.debit.isZero() === line.credit.isZero()) {
      throw new Error(`a line must carry exactly one positive side (account ${line.account})`);
    }
  }
}

/** Per account, debits minus credits of `lines` (accounts that net to zero left out). */
function netByAccount(lines: readonly JournalLine[]): Map<string, Money> {
  const net = new Map<string, Money>();
  for (const line of lines)
    net.set(line.account, (net.get(line.account) ?? new Money(0)).plus(line.debit).minus(line.credit));
  for (const [account, amount] of net) if (amount.isZero()) net.delete(account);
  return net;
}

export function sameEffect(a: readonly JournalLine[], b: readonly JournalLine[]): boolean {
  const left = netByAccount(a);
  const right = netByAccount(b);
  return left.size === right.size && [...left].every(([account, amount]) => right.get(account)?.eq(amount) === true);
}
