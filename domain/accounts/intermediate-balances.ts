import { Money } from '../money';
import type { AccountBalance, StatementLine } from './statements';

/**
 * The soldes intermédiaires de gestion (SIG, PCEMF class 8: 80 PNF … 87 résultat net) of a period's movements
 * of classes 6 and 7 (docs/domain.md §10). Class 8 holds no postings: each balance is computed from the one
 * before it and two-digit groups of income (added) and expenses (subtracted).
 *
 * The formulas are UNVERIFIED: the PCEMF's own text was not read; they are the answer a CEMAC accounting team
 * gave for the PCEMF (docs/domain.md §10). They are kept here as data so that a corrected reading changes this
 * table, not the code. Every group of classes 6 and 7 is used exactly once (a unit test checks it), so 87 is
 * always income minus expenses: the income statement's result.
 */
export interface IntermediateBalanceFormula {
  code: string;
  label: string;
  /** Earlier balances added, and subtracted. */
  add?: readonly string[];
  subtract?: readonly string[];
  /** Two-digit income groups (class 7) added. */
  income: readonly string[];
  /** Expense groups or accounts (class 6) subtracted. */
  expenses: readonly string[];
  /** Accounts of an expense group left for a later balance (the income tax, out of 66, for 86). */
  excluding?: readonly string[];
  /** Shown as the charge itself (86, the tax), not as its effect on the result. */
  charge?: boolean;
}

/**
 * The PCEMF has no income-tax expense account of its own (66 is "impôts et taxes"; 4301 is the tax owed):
 * the accounts listed here leave 66 for 86. None by default: a cooperative exempt from the tax shows 86 = 0.
 */
const incomeTaxAccounts: readonly string[] = [];

export const intermediateBalanceFormulas: readonly IntermediateBalanceFormula[] = [
  {
    code: '80',
    label: 'Produit net financier (PNF)',
    income: ['70', '71', '72', '73'],
    expenses: ['60', '61', '62', '63'],
  },
  { code: '81', label: 'Produit d’exploitation global', add: ['80'], income: ['74', '75', '76'], expenses: ['64'] },
  {
    code: '82',
    label: 'Résultat d’exploitation',
    add: ['81'],
    income: ['78', '79'],
    expenses: ['65', '66', '68', '69'],
    excluding: incomeTaxAccounts,
  },
  { code: '83', label: 'Résultat courant', add: ['82'], income: [], expenses: [] },
  { code: '84', label: 'Résultat exceptionnel', income: ['77'], expenses: ['67'] },
  { code: '85', label: 'Résultat avant impôt', add: ['83', '84'], income: [], expenses: [] },
  { code: '86', label: 'Impôts sur le résultat', income: [], expenses: incomeTaxAccounts, charge: true },
  { code: '87', label: 'Résultat net avant certification', add: ['85'], subtract: ['86'], income: [], expenses: [] },
];

/**
 * A balance is a statement line: its accounts are those of its own groups, each with its effect on the result (income
 * +, expense −), or as a charge (86).
 */
export type IntermediateBalance = StatementLine;

const zero = new Money(0);
const inGroups = (account: string, groups: readonly string[]) => groups.some((group) => account.startsWith(group));

/**
 * What an account of classes 6 and 7 brings to the result: income (a credit) positive, an expense (a debit) negative.
 */
const contribution = (row: AccountBalance) => row.balance.negated();

function ownAccounts(
  formula: IntermediateBalanceFormula,
  flows: readonly AccountBalance[],
): IntermediateBalance['accounts'] {
  const excluded = (account: string) => inGroups(account, formula.excluding ?? []);
  const taken = flows.filter(
    (row) =>
      !row.balance.isZero() &&
      (inGroups(row.account, formula.income) || (inGroups(row.account, formula.expenses) && !excluded(row.account))),
  );
  return taken.map((row) => ({
    account: row.account,
    amount: formula.charge === true ? row.balance : contribution(row),
  }));
}

/** The SIG of a period's income and expense movements (debit minus credit by account), 80 to 87 in order. */
export function intermediateBalances(flows: readonly AccountBalance[]): IntermediateBalance[] {
  const computed = new Map<string, Money>();
  const sumOf = (codes: readonly string[] = []) =>
    codes.reduce((sum, code) => sum.plus(computed.get(code) ?? zero), zero);
  return intermediateBalanceFormulas.map((formula) => {
    const accounts = ownAccounts(formula, flows);
    const own = accounts.reduce((sum, account) => sum.plus(account.amount), zero);
    const amount = sumOf(formula.add).minus(sumOf(formula.subtract)).plus(own);
    computed.set(formula.code, amount);
    return { code: formula.code, label: formula.label, amount, accounts };
  });
}
