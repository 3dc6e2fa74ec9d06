import { daysBetween, type IsoDate } from '../calendar';
import type { AccountRole } from '../events/rules';
import { formatAmount, Money } from '../money';
import type { LadderStep } from '../provisioning-ladder';
import {
  classifyBorrowerLoans,
  reclassificationOf,
  type ClassAccounts,
  type LoanClass,
  type Placement,
} from './classification';
import {
  doubtfulAccountOf,
  notDoubtfulProvisionAccount,
  provisionAccountOf,
  type CoverClass,
} from './doubtful-accounts';
import { provisionFor, yearsSince, type Provision } from './provisioning';
import {
  defaultSecondRestructuringRule,
  restructuringHold,
  type RestructuringHold,
  type RestructuringState,
} from './restructuring';

/**
 * One batch of the provisioning run (docs/domain.md §4), decided without I/O: every loan of the batch's
 * borrowers is aged, classified with its borrower's other loans and provisioned; the batch then says which
 * LoanProvision rows to write, which loans to update and which entries to post, one per (branch, kind,
 * account pair) with the sum of its loans.
 *
 * A doubtful loan's principal and provision sit on the accounts of its cover and, for the provision, of the whole
 * years it has been doubtful (domain/loans/doubtful-accounts.ts); the loan keeps both. When the cover changes the
 * principal moves (a reclassification_doubtful from the old account to the new); when the provision's account
 * changes its whole amount moves first (provision_transfer, a balance-sheet transfer that touches no charge or
 * income), then only the difference is charged or reversed, on the new account.
 *
 * A row records a loan's position when it changes, and the position at a date is the loan's latest row on or
 * before it. A performing, unprovisioned loan needs no detail, so no row: most loans never have one. A row is
 * written when the class, the provision or the downgrade date changes, and, while the loan is not performing
 * or is provisioned, when its rate, its outstanding principal or its uncovered part does (what the totals of
 * those classes add up).
 */

/** The position a LoanProvision row records: the latest row of a loan is its position until the next one. */
export interface ProvisionPosition {
  classification: LoanClass;
  /** Decimal with 6 places, as the row stores it: "0.250000". */
  rate: string;
  base: string;
  uncovered: string;
  amount: string;
}

/** What the run knows of one loan at its date: its own state, its borrower, its arrears and covers. */
export interface LoanFacts {
  id: string;
  clientId: string;
  branchId: string;
  outstanding: Money;
  classification: LoanClass;
  doubtfulSince: IsoDate | null;
  provisionAmount: Money;
  daysPastDue: number;
  litigious: boolean;
  realEstate: boolean;
  /** Where the loan's principal sits when performing or overdue. */
  classAccounts: ClassAccounts;
  /** Where its principal sits while doubtful; null when it is not. */
  doubtfulAccount: string | null;
  /** Where its provision sits; null when it has none. */
  provisionAccount: string | null;
  /** The cover class of its guarantees that count at the date. */
  cover: CoverClass;
  /** Due date of its oldest installment unpaid after its due date; null when it is up to date. */
  oldestDue: IsoDate | null;
  cashCover: Money;
  eligibleCover: Money;
  /** Its latest LoanProvision row when its last position is one rows follow (see `followed`); null otherwise. */
  latest: ProvisionPosition | null;
  /** Its latest restructuring applied by the date, if any (Art. 14 reads it). */
  restructuring?: RestructuringState | null;
}

export interface Classified {
  loanClass: LoanClass;
  /** The borrower's age: what the ladder reads. */
  ageDays: number;
  /** The loan's own days past due. */
  daysPastDue: number;
  /** What its restructuring holds it to (R-2017/07 Art. 14); none when absent. */
  hold?: RestructuringHold;
}

const unheld: RestructuringHold = { floor: null, fullProvision: false, keepProvision: false };

/**
 * The class of each loan of one borrower (contagion), the borrower's age and each loan's own days past due, in order.
 */
export function classifyBorrower(
  loans: readonly LoanFacts[],
  asOf: IsoDate,
  secondRule = defaultSecondRestructuringRule,
): Classified[] {
  const own = loans.map((loan) => (loan.oldestDue === null ? 0 : daysBetween(loan.oldestDue, asOf)));
  const holds = loans.map((loan) =>
    loan.restructuring === undefined || loan.restructuring === null
      ? unheld
      : restructuringHold(loan.restructuring, asOf, secondRule),
  );
  const classes = classifyBorrowerLoans(
    loans.map((loan, index) => ({
      loanId: loan.id,
      daysPastDue: own[index]!,
      realEstate: loan.realEstate,
      litigious: loan.litigious,
      previousClass: loan.classification,
      classFloor: holds[index]!.floor,
    })),
  );
  // A loan never restructured carries no hold: its figures stay as they were.
  return classes.map((row, index) => ({
    loanClass: row.loanClass,
    ageDays: row.ageDays,
    daysPastDue: own[index]!,
    ...(holds[index] === unheld ? {} : { hold: holds[index]! }),
  }));
}

export interface Assessment extends Classified {
  doubtfulSince: IsoDate | null;
  provision: Provision;
  /** The provision charged (positive) or reversed (negative) since the loan's last one. */
  delta: Money;
}

const zero = new Money(0);

/** One loan's provision at `asOf` from its class and its borrower's age. */
export function assessLoan(
  loan: LoanFacts,
  classified: Classified,
  asOf: IsoDate,
  ladder: readonly LadderStep[],
): Assessment {
  const { loanClass, ageDays, daysPastDue, hold = unheld } = classified;
  // The downgrade date is kept while the loan stays doubtful: the regulatory minimum counts years from it.
  const doubtfulSince =
    loanClass !== 'doubtful' ? null : loan.classification === 'doubtful' ? loan.doubtfulSince : asOf;
  const covers = { cashCover: loan.cashCover, eligibleCover: loan.eligibleCover };
  // Art. 14: a restructured doubtful loan that missed an installment is provisioned in full, as a litigious one.
  const computed = provisionFor({
    outstanding: loan.outstanding,
    loanClass,
    ageDays,
    ...covers,
    doubtfulSince,
    litigious: loan.litigious || hold.fullProvision,
    asOf,
    ladder,
  });
  // Art. 14: the provisions made before are reversed only once the transition is over (never above the principal).
  const kept = Money.min(loan.provisionAmount, loan.outstanding);
  const provision = hold.keepProvision && computed.amount.lt(kept) ? { ...computed, amount: kept } : computed;
  const delta = provision.amount.eq(loan.provisionAmount) ? zero : provision.amount.minus(loan.provisionAmount);
  return { loanClass, ageDays, daysPastDue, doubtfulSince, provision, delta };
}

/** A LoanProvision row to write: the loan's new position, its days past due at the date, the change of its amount. */
export interface ProvisionRow extends ProvisionPosition {
  loanId: string;
  branchId: string;
  daysPastDue: number;
  previousAmount: string;
  delta: string;
}

/** The state a loan keeps of its last run, written back when it changed. */
export interface LoanUpdate {
  loanId: string;
  classification: LoanClass;
  daysPastDue: number;
  provisionAmount: string;
  doubtfulSince: IsoDate | null;
  doubtfulAccount: string | null;
  provisionAccount: string | null;
}

/** One entry of the batch: the sum of its loans' amounts for one branch, one kind and one pair of accounts. */
export interface BatchPosting {
  branchId: string;
  kind:
    | 'reclassification_overdue'
    | 'reclassification_doubtful'
    | 'reclassification_performing'
    | 'provision_charge'
    | 'provision_reversal'
    | 'provision_transfer';
  /**
   * The accounts the rule's roles stand for: the classes' accounts of a reclassification, the provision accounts of the
   * others.
   */
  productAccounts: Partial<Record<AccountRole, string>>;
  amount: Money;
  loans: number;
}

export interface BatchPlan {
  rows: ProvisionRow[];
  loanUpdates: LoanUpdate[];
  postings: BatchPosting[];
  totals: { loans: number; changed: number; reclassified: number; charged: Money; reversed: Money };
}

/** Whether rows follow a position in detail: not while the loan is performing and unprovisioned. */
const followed = (loanClass: LoanClass, provision: Money): boolean => loanClass !== 'performing' || !provision.isZero();

const samePosition = (latest: ProvisionPosition | null, next: ProvisionPosition): boolean =>
  latest !== null &&
  latest.classification === next.classification &&
  latest.amount === next.amount &&
  latest.base === next.base &&
  latest.uncovered === next.uncovered &&
  latest.rate === next.rate;

/** Adds `amount` to the batch's entry for (branch, kind, accounts). */
function addPosting(postings: Map<string, BatchPosting>, posting: Omit<BatchPosting, 'loans'>): void {
  const key = `${posting.branchId} ${posting.kind} ${Object.entries(posting.productAccounts)
    .map(([role, account]) => `${role}=${account}`)
    .join(',')}`;
  const existing = postings.get(key);
  if (existing === undefined) postings.set(key, { ...posting, loans: 1 });
  else {
    existing.amount = existing.amount.plus(posting.amount);
    existing.loans += 1;
  }
}

/**
 * The loans of each borrower. The run reads them in borrower order, which makes a borrower's loans adjacent:
 * cheaper than a map of 10 000 borrowers, and checked, since a borrower split in two would escape contagion.
 */
function byBorrower(loans: readonly LoanFacts[]): LoanFacts[][] {
  const borrowers: LoanFacts[][] = [];
  let current: LoanFacts[] = [];
  for (const loan of loans) {
    const previous = current[0]?.clientId;
    if (previous !== undefined && loan.clientId < previous)
      throw new Error('the loans of a batch must come in borrower order');
    if (previous !== loan.clientId) borrowers.push((current = []));
    current.push(loan);
  }
  return borrowers;
}

/** The batch decided: every loan assessed with its borrower's, then what changed written, moved and posted. */
/** `loans` in borrower order (by client id); `secondRule`: the enterprise's rule for a second restructuring (§14.2). */
export function planBatch(
  loans: readonly LoanFacts[],
  asOf: IsoDate,
  ladder: readonly LadderStep[],
  secondRule = defaultSecondRestructuringRule,
): BatchPlan {
  const postings = new Map<string, BatchPosting>();
  const plan: BatchPlan = {
    rows: [],
    loanUpdates: [],
    postings: [],
    totals: { loans: loans.length, changed: 0, reclassified: 0, charged: zero, reversed: zero },
  };
  for (const borrower of byBorrower(loans)) {
    const classes = classifyBorrower(borrower, asOf, secondRule);
    borrower.forEach((loan, index) =>
      planLoan(plan, postings, loan, assessLoan(loan, classes[index]!, asOf, ladder), asOf),
    );
  }
  plan.postings = [...postings.values()];
  return plan;
}

/** Where a loan's principal sits in its class: a doubtful loan's account is its cover's. */
function placementOf(loan: LoanFacts, loanClass: LoanClass, doubtfulAccount: string | null): Placement {
  return { loanClass, account: loanClass === 'doubtful' ? doubtfulAccount! : loan.classAccounts[loanClass] };
}

/**
 * The account the loan's provision belongs on now: by cover and years doubtful; 3931 for a loan provisioned while only
 * overdue.
 */
function provisionAccountFor(loan: LoanFacts, assessed: Assessment, asOf: IsoDate): string | null {
  if (assessed.provision.amount.isZero()) return null;
  if (assessed.doubtfulSince === null) return notDoubtfulProvisionAccount;
  return provisionAccountOf(loan.cover, yearsSince(assessed.doubtfulSince, asOf));
}

/** One loan's part of the batch: its entries' amounts, its row if its position changed, its update if its state did. */
function planLoan(
  plan: BatchPlan,
  postings: Map<string, BatchPosting>,
  loan: LoanFacts,
  assessed: Assessment,
  asOf: IsoDate,
): void {
  const { loanClass, daysPastDue, doubtfulSince, provision, delta } = assessed;
  const { totals } = plan;
  const branchId = loan.branchId;
  const doubtfulAccount = loanClass === 'doubtful' ? doubtfulAccountOf(loan.cover) : null;
  const reclassification = reclassificationOf(
    placementOf(loan, loan.classification, loan.doubtfulAccount),
    placementOf(loan, loanClass, doubtfulAccount),
  );
  if (reclassification !== null) {
    if (loan.classification !== loanClass) totals.reclassified += 1;
    const { kind, productAccounts } = reclassification;
    if (loan.outstanding.gt(0)) addPosting(postings, { branchId, kind, productAccounts, amount: loan.outstanding });
  }
  // The provision moves whole to its new account, then changes there; one that goes to nothing is reversed where it
  // was.
  const provisionAccount = provisionAccountFor(loan, assessed, asOf);
  const moved =
    provisionAccount !== null &&
    loan.provisionAccount !== null &&
    provisionAccount !== loan.provisionAccount &&
    loan.provisionAmount.gt(0);
  if (moved)
    addPosting(postings, {
      branchId,
      kind: 'provision_transfer',
      productAccounts: { provisions: loan.provisionAccount!, provisions_destination: provisionAccount },
      amount: loan.provisionAmount,
    });
  if (!delta.isZero()) {
    totals.changed += 1;
    if (delta.gt(0)) totals.charged = totals.charged.plus(delta);
    else totals.reversed = totals.reversed.minus(delta);
    const account = (provisionAccount ?? loan.provisionAccount)!;
    addPosting(postings, {
      branchId,
      kind: delta.gt(0) ? 'provision_charge' : 'provision_reversal',
      productAccounts: { provisions: account },
      amount: delta.abs(),
    });
  }
  const accountsChanged = doubtfulAccount !== loan.doubtfulAccount || provisionAccount !== loan.provisionAccount;
  const stateChanged =
    reclassification !== null || !delta.isZero() || doubtfulSince !== loan.doubtfulSince || accountsChanged;
  if (stateChanged || followed(loanClass, provision.amount)) planRow(plan, loan, assessed, stateChanged);
  if (stateChanged || daysPastDue !== loan.daysPastDue) {
    const provisionAmount = formatAmount(provision.amount);
    plan.loanUpdates.push({
      loanId: loan.id,
      classification: loanClass,
      daysPastDue,
      provisionAmount,
      doubtfulSince,
      doubtfulAccount,
      provisionAccount,
    });
  }
}

/** The loan's row, when its state changed or the detail of a followed position did. */
function planRow(plan: BatchPlan, loan: LoanFacts, assessed: Assessment, stateChanged: boolean): void {
  const { provision, delta } = assessed;
  const position: ProvisionPosition = {
    classification: assessed.loanClass,
    rate: provision.rate.toFixed(6),
    base: formatAmount(loan.outstanding),
    uncovered: formatAmount(provision.base),
    amount: formatAmount(provision.amount),
  };
  if (!stateChanged && samePosition(loan.latest, position)) return;
  const previousAmount = formatAmount(loan.provisionAmount);
  plan.rows.push({
    ...position,
    loanId: loan.id,
    branchId: loan.branchId,
    daysPastDue: assessed.daysPastDue,
    previousAmount,
    delta: formatAmount(delta),
  });
}
