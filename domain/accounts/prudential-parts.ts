import { Money } from '../money';
import { balanceSheetLineOf, type AccountBalance } from './statements';

/**
 * The parts the COBAC ratios add up (docs/domain.md §10): each part reads accounts of the PCEMF at the date
 * and counts them at a rate. Which accounts feed which part is the product's reading of the norms (inference,
 * documented); the parts are data so that an auditor's correction changes a table.
 */
export interface PartRule {
  key: string;
  label: string;
  /** Account codes under these prefixes… */
  prefixes: readonly string[];
  /** …but not under these. */
  except?: readonly string[];
  /** …counted as debit minus credit ('debit') or credit minus debit ('credit')… */
  reading: 'debit' | 'credit';
  /** …only those whose balance lies on the reading's side (a deposit account in debit is not a deposit). */
  sideOnly?: boolean;
  /** Subtracted from the total it belongs to. */
  deducted?: boolean;
  /** Decimal string; default 1. */
  rate?: string;
}

export interface Part {
  key: string;
  label: string;
  rate: Money;
  /** Rate × the accounts' sum, to the franc; negative when deducted. */
  amount: Money;
  accounts: { account: string; amount: Money }[];
}

const zero = new Money(0);
const one = new Money(1);
const under = (account: string, prefixes: readonly string[]) => prefixes.some((prefix) => account.startsWith(prefix));

/** Rate × amount to the franc, half up (the result of every part is whole francs, like the ledger). */
const toFranc = (amount: Money, rate: Money) =>
  rate.eq(one) ? amount : amount.mul(rate).toDecimalPlaces(0, Money.ROUND_HALF_UP);

export function partOf(rule: PartRule, balances: readonly AccountBalance[]): Part {
  const read = (row: AccountBalance) => (rule.reading === 'debit' ? row.balance : row.balance.negated());
  const taken = (row: AccountBalance) => under(row.account, rule.prefixes) && !under(row.account, rule.except ?? []);
  const rows = balances.filter(
    (row) => taken(row) && !row.balance.isZero() && (rule.sideOnly !== true || read(row).isPositive()),
  );
  const accounts = rows.map((row) => ({ account: row.account, amount: read(row) }));
  const rate = new Money(rule.rate ?? 1);
  const sum = toFranc(
    accounts.reduce((total, account) => total.plus(account.amount), zero),
    rate,
  );
  return { key: rule.key, label: rule.label, rate, amount: rule.deducted === true ? sum.negated() : sum, accounts };
}

export const sumOfParts = (parts: readonly Part[]) => parts.reduce((total, part) => total.plus(part.amount), zero);

/** A part that is no accounts but a figure from the subledgers (the loans' schedules). */
export const figurePart = (key: string, label: string, amount: Money): Part => ({
  key,
  label,
  rate: one,
  amount,
  accounts: [],
});

/** The accounts of a balance-sheet asset line (docs/domain.md §7), at a rate: the risk weights apply to those lines. */
export function assetLinePart(
  key: string,
  label: string,
  line: string,
  rate: Money,
  balances: readonly AccountBalance[],
): Part {
  const rows = balances.filter(
    (row) => !row.balance.isZero() && /^[1-5]/.test(row.account) && balanceSheetLineOf(row) === line,
  );
  const accounts = rows.map((row) => ({ account: row.account, amount: row.balance }));
  return {
    key,
    label,
    rate,
    amount: toFranc(
      accounts.reduce((total, account) => total.plus(account.amount), zero),
      rate,
    ),
    accounts,
  };
}

/**
 * Net equity (fonds propres nets; "fonds patrimoniaux nets" for a 1st-category EMF, whose content EMF 2002/03
 * does not give in what could be read): the base own funds of EMF 2002/04 Art. 2 read in the PCEMF — paid-up
 * shares, premiums, reserves, credit report à nouveau, the last result pending allocation (a loss in 132
 * reduces it), regulated provisions, subsidies, the fonds de solidarité and funds from own resources; less the
 * debit report à nouveau and intangible assets net of their amortisation. An interim loss of the period is
 * deducted (not an interim profit, which is not certified yet): see netEquityParts.
 */
const netEquityRules: readonly PartRule[] = [
  {
    key: 'paid_up_shares',
    label: 'Parts sociales souscrites appelées versées (1000)',
    prefixes: ['1000'],
    reading: 'credit',
  },
  { key: 'premiums', label: 'Primes liées au capital (104)', prefixes: ['104'], reading: 'credit' },
  { key: 'reserves', label: 'Réserves (11)', prefixes: ['11'], reading: 'credit' },
  { key: 'credit_carry_forward', label: 'Report à nouveau créditeur (121)', prefixes: ['121'], reading: 'credit' },
  {
    key: 'result_pending_allocation',
    label: 'Résultat de l’exercice clos en instance d’affectation (13)',
    prefixes: ['13'],
    reading: 'credit',
  },
  {
    key: 'regulated_provisions',
    label: 'Provisions et réserves réglementées (14)',
    prefixes: ['14'],
    reading: 'credit',
  },
  { key: 'subsidies', label: 'Subventions d’investissement (15)', prefixes: ['15'], reading: 'credit' },
  {
    key: 'own_funds',
    label: 'Fonds de solidarité et fonds affectés sur ressources propres (160, 161)',
    prefixes: ['160', '161'],
    reading: 'credit',
  },
  {
    key: 'debit_carry_forward',
    label: 'Report à nouveau débiteur (122)',
    prefixes: ['122'],
    reading: 'debit',
    deducted: true,
  },
  {
    key: 'intangible_assets',
    label: 'Valeurs incorporelles nettes (20 − 280)',
    prefixes: ['20', '280'],
    reading: 'debit',
    deducted: true,
  },
];

export function netEquityParts(balances: readonly AccountBalance[]): Part[] {
  const parts = netEquityRules.map((rule) => partOf(rule, balances));
  const period = partOf(
    { key: 'interim_result', label: 'Résultat de la période (7 − 6)', prefixes: ['6', '7'], reading: 'credit' },
    balances,
  );
  return [
    ...parts,
    {
      ...period,
      key: 'interim_loss',
      label: 'Perte de la période en cours (7 − 6, si négatif)',
      amount: Money.min(period.amount, zero),
    },
  ];
}
