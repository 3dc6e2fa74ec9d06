import { Money } from '../money';
import { ladderStepOf, type LadderStep } from '../provisioning-ladder';
import type { LoanClass } from './classification';

/**
 * The statement of loans in arrears and their provisions (état des créances en souffrance) at a date
 * (docs/domain.md §10): the loans of the portfolio at their position then (the provisioning run's
 * classification, COBAC R-2017/07), grouped by class and by age band, the bands being the steps of the
 * enterprise's provisioning ladder. Pure: the caller reads the positions.
 */
export interface LoanPositionAt {
  loan: string;
  loanNumber: string;
  branch: string;
  member: string;
  memberNumber: string;
  memberName: string;
  classification: LoanClass;
  litigious: boolean;
  daysPastDue: number;
  outstanding: Money;
  /** What the product's guarantee rules leave uncovered (docs/domain.md §4). */
  uncovered: Money;
  provisions: Money;
  /** Principal and interest due on or before the date and unpaid at it. */
  arrears: Money;
}

export interface ArrearsFigures {
  loans: number;
  litigious: number;
  outstanding: Money;
  arrears: Money;
  /** The part of the outstanding principal the guarantees cover (outstanding − uncovered). */
  guaranteed: Money;
  provisions: Money;
}

export interface ArrearsGroup extends ArrearsFigures {
  classification: LoanClass;
  band: { days_from: number; days_to: number | null };
}

export interface ArrearsStatement {
  groups: ArrearsGroup[];
  byClass: (ArrearsFigures & { classification: LoanClass })[];
  totals: ArrearsFigures;
  loans: LoanPositionAt[];
}

const classOrder: readonly LoanClass[] = ['performing', 'overdue', 'doubtful'];
const empty = (): ArrearsFigures => ({
  loans: 0,
  litigious: 0,
  outstanding: new Money(0),
  arrears: new Money(0),
  guaranteed: new Money(0),
  provisions: new Money(0),
});

function add(figures: ArrearsFigures, loan: LoanPositionAt): ArrearsFigures {
  return {
    loans: figures.loans + 1,
    litigious: figures.litigious + (loan.litigious ? 1 : 0),
    outstanding: figures.outstanding.plus(loan.outstanding),
    arrears: figures.arrears.plus(loan.arrears),
    guaranteed: figures.guaranteed.plus(loan.outstanding.minus(loan.uncovered)),
    provisions: figures.provisions.plus(loan.provisions),
  };
}

/**
 * The statement of the positions: groups in class then band order, a class's totals, the whole portfolio's; loans by
 * class, age (oldest first) and number.
 */
export function arrearsStatement(
  positions: readonly LoanPositionAt[],
  ladder: readonly LadderStep[],
): ArrearsStatement {
  const groups = new Map<string, ArrearsGroup>();
  const classes = new Map<LoanClass, ArrearsFigures>();
  let totals = empty();
  for (const loan of positions) {
    const band = ladderStepOf(ladder, loan.daysPastDue);
    const key = `${classOrder.indexOf(loan.classification)}:${String(band.days_from).padStart(6, '0')}`;
    const group = groups.get(key) ?? {
      classification: loan.classification,
      band: { days_from: band.days_from, days_to: band.days_to },
      ...empty(),
    };
    groups.set(key, { ...group, ...add(group, loan) });
    classes.set(loan.classification, add(classes.get(loan.classification) ?? empty(), loan));
    totals = add(totals, loan);
  }
  const byClass = classOrder
    .filter((loanClass) => classes.has(loanClass))
    .map((loanClass) => ({ classification: loanClass, ...classes.get(loanClass)! }));
  const rank = (loan: LoanPositionAt) => classOrder.indexOf(loan.classification);
  const loans = [...positions].sort(
    (a, b) => rank(a) - rank(b) || b.daysPastDue - a.daysPastDue || a.loanNumber.localeCompare(b.loanNumber),
  );
  return {
    groups: [...groups].sort(([a], [b]) => a.localeCompare(b)).map(([, group]) => group),
    byClass,
    totals,
    loans,
  };
}

export interface LedgerAgreement {
  figure: LoanClass | 'provisions';
  /**
   * The accounts holding the figure and their balances at the date (debit minus credit; provisions negated, a credit).
   */
  accounts: { account: string; amount: Money }[];
  ledger: Money;
  statement: Money;
  agrees: boolean;
}

/**
 * The statement against the ledger at the same date and branches: each class's outstanding principal against the
 * accounts holding it (the products' portfolio accounts, 3312, the doubtful accounts by cover 3332, 3342, 3352:
 * docs/domain.md §4), the provisions against their accounts (39100, 3921–3924, 3931–3933). A difference names an entry
 * posted outside the loan operations.
 */
export function ledgerAgreement(
  statement: ArrearsStatement,
  balances: readonly { account: string; balance: Money }[],
  accounts: Readonly<Record<LoanClass | 'provisions', readonly string[]>>,
): LedgerAgreement[] {
  const figures: (LoanClass | 'provisions')[] = [...classOrder, 'provisions'];
  return figures.map((figure) => {
    const held = balances
      .filter((row) => accounts[figure].includes(row.account))
      .map((row) => ({ account: row.account, amount: figure === 'provisions' ? row.balance.negated() : row.balance }));
    const ledger = held.reduce((sum, row) => sum.plus(row.amount), new Money(0));
    const inStatement =
      figure === 'provisions'
        ? statement.totals.provisions
        : (statement.byClass.find((row) => row.classification === figure)?.outstanding ?? new Money(0));
    return { figure, accounts: held, ledger, statement: inStatement, agrees: ledger.eq(inStatement) };
  });
}
