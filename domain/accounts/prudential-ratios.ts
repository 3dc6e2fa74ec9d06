import { creditCapBreaches, shareCapitalLimit, relatedPartyCap, type CreditCapBreach } from '../loans/credit-caps';
import { Money } from '../money';
import { byCodePoint } from '../text-order';
import { assetLinePart, figurePart, netEquityParts, partOf, sumOfParts, type Part } from './prudential-parts';
import type { PrudentialSettings, RiskWeights } from './prudential-settings';
import type { AccountBalance } from './statements';

/**
 * The COBAC prudential ratios of a 1st-category EMF at a date (docs/domain.md §10). Pure: the caller reads the
 * balances at the date (classes 1 to 7), the principal of the performing loans falling due within three months
 * and each borrower's exposure; the enterprise's settings give the thresholds and weights.
 */
export interface BorrowerExposure {
  member: string;
  memberNumber: string;
  name: string;
  relatedParty: boolean;
  /** Outstanding principal at the date, all classes. */
  outstanding: Money;
  /** Provisions on it at the date. */
  provisions: Money;
}

export interface PrudentialInput {
  balances: readonly AccountBalance[];
  /** Principal of the installments of performing loans falling due within three months after the date, unpaid at it. */
  performingDueWithinThreeMonths: Money;
  exposures: readonly BorrowerExposure[];
  settings: PrudentialSettings;
}

export interface NamedExposure extends BorrowerExposure {
  /** Outstanding net of provisions: the risk the norm weighs. */
  exposure: Money;
  /** exposure ÷ net equity, null when net equity is not positive. */
  ratio: Money | null;
  exceeds: boolean;
}

export interface Ratio {
  code: 'solvency' | 'liquidity' | 'fixed_asset_coverage' | 'concentration' | 'insiders';
  label: string;
  numerator: Money;
  denominator: Money;
  /** numerator ÷ denominator to 6 decimals (rounded down), null when the denominator is zero. */
  value: Money | null;
  threshold: Money;
  comparison: 'at_least' | 'at_most';
  met: boolean;
  /** false: a bank norm shown for information, not a COBAC norm for EMFs. */
  cobacEmfNorm: boolean;
  source: string;
  numeratorParts: Part[];
  denominatorParts: Part[];
  borrowers?: NamedExposure[];
}

export interface CreditCapReview {
  paidUpCapital: Money;
  shareCapitalLimit: Money;
  relatedPartyLimit: Money;
  breaches: { exposure: BorrowerExposure; breach: CreditCapBreach }[];
}

export interface PrudentialRatios {
  netEquity: { amount: Money; parts: Part[] };
  ratios: Ratio[];
  creditCaps: CreditCapReview;
}

const zero = new Money(0);
/** How many of the largest exposures are named even when none breaches. */
const largestShown = 10;

/**
 * The ratio's value, and whether it meets its threshold, compared exactly (numerator against threshold × denominator,
 * no rounding).
 */
function judged(numerator: Money, denominator: Money, threshold: Money, comparison: Ratio['comparison']) {
  const value = denominator.isZero() ? null : numerator.div(denominator).toDecimalPlaces(6, Money.ROUND_DOWN);
  const bound = threshold.mul(denominator);
  return { value, met: comparison === 'at_least' ? numerator.gte(bound) : numerator.lte(bound) };
}

type RatioHead = Pick<Ratio, 'code' | 'label' | 'comparison' | 'cobacEmfNorm' | 'source'>;

function ratioOf(
  head: RatioHead,
  threshold: string,
  numeratorParts: Part[],
  denominatorParts: Part[],
  borrowers?: NamedExposure[],
): Ratio {
  const numerator = sumOfParts(numeratorParts);
  const denominator = sumOfParts(denominatorParts);
  const thresholdValue = new Money(threshold);
  const outcome = judged(numerator, denominator, thresholdValue, head.comparison);
  return {
    ...head,
    numerator,
    denominator,
    threshold: thresholdValue,
    ...outcome,
    numeratorParts,
    denominatorParts,
    ...(borrowers === undefined ? {} : { borrowers }),
  };
}

const riskLines: readonly { key: keyof RiskWeights; label: string; line: string }[] = [
  { key: 'customer_loans', label: 'Crédits à la clientèle nets de provisions (30–34 − 39)', line: 'A2' },
  { key: 'customer_debit_accounts', label: 'Comptes débiteurs de la clientèle (35–38)', line: 'A3' },
  { key: 'third_parties', label: 'Comptes de tiers et de régularisation (40–48 − 49)', line: 'A4' },
  { key: 'fixed_assets', label: 'Valeurs immobilisées nettes (2)', line: 'A1' },
  { key: 'treasury', label: 'Trésorerie et opérations interbancaires (51–58 − 59)', line: 'A5' },
];

function solvency(equity: Part[], input: PrudentialInput): Ratio {
  const risks = riskLines.map((risk) =>
    assetLinePart(risk.key, risk.label, risk.line, new Money(input.settings.risk_weights[risk.key]), input.balances),
  );
  const head: RatioHead = {
    code: 'solvency',
    label: 'Couverture des risques (solvabilité)',
    comparison: 'at_least',
    cobacEmfNorm: true,
    source: 'Règlement COBAC EMF 2002/07; risk weights: product default (NOT FOUND)',
  };
  return ratioOf(head, input.settings.solvency_min, equity, risks);
}

/** The assets counted as liquid within three months, at their rates. */
function liquidAssets(input: PrudentialInput): Part[] {
  const { balances } = input;
  return [
    partOf({ key: 'cash', label: 'Caisse (57)', prefixes: ['57'], reading: 'debit' }, balances),
    partOf(
      {
        key: 'correspondents_debit',
        label: 'Correspondants débiteurs (54–56)',
        prefixes: ['54', '55', '56'],
        reading: 'debit',
        sideOnly: true,
      },
      balances,
    ),
    figurePart(
      'performing_installments',
      'Échéances en principal des crédits sains à moins de 3 mois',
      input.performingDueWithinThreeMonths,
    ),
    partOf(
      {
        key: 'customer_debit_accounts',
        label: 'Comptes débiteurs de la clientèle (37) à 75 %',
        prefixes: ['37'],
        reading: 'debit',
        sideOnly: true,
        rate: '0.75',
      },
      balances,
    ),
  ];
}

/** The liabilities counted as due within three months, at their rates. */
function shortTermLiabilities(balances: PrudentialInput['balances']): Part[] {
  return [
    partOf(
      {
        key: 'correspondents_credit',
        label: 'Correspondants créditeurs (54–56)',
        prefixes: ['54', '55', '56'],
        reading: 'credit',
        sideOnly: true,
      },
      balances,
    ),
    partOf(
      {
        key: 'borrowings',
        label: 'Emprunts et ressources permanentes (17, 18), en totalité',
        prefixes: ['17', '18'],
        reading: 'credit',
      },
      balances,
    ),
    partOf(
      {
        key: 'term_deposits',
        label: 'Dépôts à terme (36), en totalité',
        prefixes: ['36'],
        reading: 'credit',
        sideOnly: true,
      },
      balances,
    ),
    partOf(
      {
        key: 'demand_deposits',
        label: 'Dépôts à vue (371–373) à 50 %',
        prefixes: ['371', '372', '373'],
        reading: 'credit',
        sideOnly: true,
        rate: '0.5',
      },
      balances,
    ),
  ];
}

/**
 * EMF 2002/14: the correspondents' accounts are taken as all due within three months and the term deposits
 * (36) too, the data holding no maturities for them; so are borrowings (17, 18), which the product does not
 * lend against a schedule. Each approximation can only lower the ratio.
 */
function liquidity(input: PrudentialInput): Ratio {
  const assets = liquidAssets(input);
  const liabilities = shortTermLiabilities(input.balances);
  const head: RatioHead = {
    code: 'liquidity',
    label: 'Liquidité',
    comparison: 'at_least',
    cobacEmfNorm: true,
    source: 'Règlement COBAC EMF 2002/14',
  };
  return ratioOf(head, input.settings.liquidity_min, assets, liabilities);
}

function fixedAssetCoverage(input: PrudentialInput): Ratio {
  const funds = [
    // Unpaid capital is a claim on the members, not a resource (own funds count paid-up shares only: EMF 2002/04 Art.
    // 2).
    partOf(
      {
        key: 'permanent_funds',
        label: 'Capitaux permanents (classe 1, hors capital souscrit non versé 1001, 1011, 1012, 103)',
        prefixes: ['1'],
        except: ['1001', '1011', '1012', '103'],
        reading: 'credit',
      },
      input.balances,
    ),
    partOf(
      { key: 'period_result', label: 'Résultat de la période (7 − 6)', prefixes: ['6', '7'], reading: 'credit' },
      input.balances,
    ),
  ];
  const fixed = [assetLinePart('fixed_assets', 'Valeurs immobilisées nettes (2)', 'A1', new Money(1), input.balances)];
  const head: RatioHead = {
    code: 'fixed_asset_coverage',
    label: 'Couverture des immobilisations par les ressources permanentes',
    comparison: 'at_least',
    cobacEmfNorm: false,
    source: 'Bank norm; no EMF text found (product default)',
  };
  return ratioOf(head, input.settings.fixed_asset_coverage_min, funds, fixed);
}

type Borrower = Omit<NamedExposure, 'ratio'>;

/** The borrowers with a net exposure, each marked when above `limit` × equity, in no order. */
function named(exposures: readonly BorrowerExposure[], equity: Money, limit: Money): Borrower[] {
  const ceiling = limit.mul(equity);
  return exposures
    .map((exposure) => {
      const net = exposure.outstanding.minus(exposure.provisions);
      return { ...exposure, exposure: net, exceeds: net.gt(ceiling) };
    })
    .filter((exposure) => exposure.exposure.gt(0));
}

/** The largest exposure first, then by member number. */
const byExposure = (a: Borrower, b: Borrower) =>
  b.exposure.cmp(a.exposure) || byCodePoint(a.memberNumber, b.memberNumber);

/**
 * The first `count` borrowers by exposure, sorted: each compared with the last one kept, not every borrower sorted
 * (ten thousand borrowers sorted whole cost the report a tenth of its time).
 */
function largestOf(borrowers: readonly Borrower[], count: number): Borrower[] {
  const kept: Borrower[] = [];
  for (const borrower of borrowers) {
    if (kept.length >= count && (count <= 0 || byExposure(borrower, kept.at(-1)!) >= 0)) continue;
    const at = kept.findIndex((other) => byExposure(borrower, other) < 0);
    kept.splice(at === -1 ? kept.length : at, 0, borrower);
    if (kept.length > count) kept.pop();
  }
  return kept;
}

/** The borrowers a report lists, each with its exposure's share of net equity (computed for those listed only). */
const withRatios = (borrowers: readonly Omit<NamedExposure, 'ratio'>[], equity: Money): NamedExposure[] =>
  borrowers.map(({ exceeds, ...borrower }) => ({
    ...borrower,
    ratio: equity.gt(0) ? borrower.exposure.div(equity).toDecimalPlaces(6, Money.ROUND_DOWN) : null,
    exceeds,
  }));

function concentration(equity: Part[], equityAmount: Money, input: PrudentialInput): Ratio {
  const borrowers = named(input.exposures, equityAmount, new Money(input.settings.concentration_max));
  // Every borrower above the limit, and the largest of the others up to `largestShown` listed in all.
  const exceeding = borrowers.filter((borrower) => borrower.exceeds).sort(byExposure);
  const shown = [
    ...exceeding,
    ...largestOf(
      borrowers.filter((borrower) => !borrower.exceeds),
      largestShown - exceeding.length,
    ),
  ];
  const largest = figurePart(
    'largest_exposure',
    `Plus gros risque sur un même bénéficiaire${shown[0] === undefined ? '' : ` (${shown[0].memberNumber})`}`,
    shown[0]?.exposure ?? zero,
  );
  const head: RatioHead = {
    code: 'concentration',
    label: 'Division des risques (un même bénéficiaire)',
    comparison: 'at_most',
    cobacEmfNorm: true,
    source: 'Règlement COBAC EMF 2002/08',
  };
  return ratioOf(head, input.settings.concentration_max, [largest], equity, withRatios(shown, equityAmount));
}

function insiders(equity: Part[], equityAmount: Money, input: PrudentialInput): Ratio {
  const borrowers = named(
    input.exposures.filter((exposure) => exposure.relatedParty),
    equityAmount,
    new Money(input.settings.insiders_max),
  ).sort(byExposure);
  const total = figurePart(
    'insiders',
    'Engagements nets sur les apparentés (dirigeants, administrateurs, personnel)',
    borrowers.reduce((sum, borrower) => sum.plus(borrower.exposure), zero),
  );
  const head: RatioHead = {
    code: 'insiders',
    label: 'Engagements sur les apparentés',
    comparison: 'at_most',
    cobacEmfNorm: true,
    source: 'Règlement COBAC EMF 2002/10',
  };
  return ratioOf(head, input.settings.insiders_max, [total], equity, withRatios(borrowers, equityAmount));
}

/** COBAC R-2017/08 restated at the date with the limits the product enforces at lending (docs/domain.md §3). */
function creditCapReview(input: PrudentialInput): CreditCapReview {
  const paidUpCapital = partOf(
    { key: 'paid_up_shares', label: '', prefixes: ['1000'], reading: 'credit' },
    input.balances,
  ).amount;
  const breaches = input.exposures.flatMap((exposure) =>
    creditCapBreaches(exposure.outstanding, paidUpCapital, exposure.relatedParty).map((breach) => ({
      exposure,
      breach,
    })),
  );
  return {
    paidUpCapital,
    shareCapitalLimit: shareCapitalLimit(paidUpCapital),
    relatedPartyLimit: relatedPartyCap,
    breaches,
  };
}

/** A loan at the date as the ratios read it. */
export interface LoanFacts extends Omit<BorrowerExposure, 'name'> {
  memberName: string;
  classification: 'performing' | 'overdue' | 'doubtful';
  principalDueWithinThreeMonths: Money;
}

/**
 * What the ratios read from the loans: one exposure per borrower ("same beneficiary" = the member, EMF 2002/08),
 * the member's loans summed, and the principal the performing loans have falling due within three months.
 */
export function loanFigures(
  loans: readonly LoanFacts[],
): Pick<PrudentialInput, 'exposures' | 'performingDueWithinThreeMonths'> {
  const borrowers = new Map<string, BorrowerExposure>();
  for (const loan of loans) {
    const known = borrowers.get(loan.member);
    borrowers.set(loan.member, {
      member: loan.member,
      memberNumber: loan.memberNumber,
      name: loan.memberName,
      relatedParty: loan.relatedParty,
      outstanding: (known?.outstanding ?? zero).plus(loan.outstanding),
      provisions: (known?.provisions ?? zero).plus(loan.provisions),
    });
  }
  const performing = loans.filter((loan) => loan.classification === 'performing');
  return {
    exposures: [...borrowers.values()],
    performingDueWithinThreeMonths: performing.reduce(
      (sum, loan) => sum.plus(loan.principalDueWithinThreeMonths),
      zero,
    ),
  };
}

/**
 * EMF 2002/10 Art. 3: "lorsqu'ils excèdent 5 % des fonds propres nets, les engagements … sur un de ses administrateurs
 * ou dirigeants agréés, sur un de ses agents, viennent en déduction … des fonds propres nets". Each related party's
 * exposure (net of its provisions) above the threshold of net equity before this deduction is deducted whole (the
 * literal reading; the threshold is the enterprise's `insider_deduction_max`).
 */
function insiderDeduction(equityBefore: Money, input: PrudentialInput): Part {
  const limit = new Money(input.settings.insider_deduction_max).mul(equityBefore);
  const insiders = named(
    input.exposures.filter((exposure) => exposure.relatedParty),
    equityBefore,
    new Money(input.settings.insider_deduction_max),
  );
  const over = insiders.filter((borrower) => borrower.exposure.gt(limit));
  const total = over.reduce((sum, borrower) => sum.plus(borrower.exposure), zero);
  const members = over.map((borrower) => borrower.memberNumber).join(', ');
  return figurePart(
    'insider_exposures',
    `Engagements sur un apparenté au-delà de ${input.settings.insider_deduction_max} des fonds propres nets (EMF ` +
      `2002/10 Art. 3)${members === '' ? '' : ` : ${members}`}`,
    total.negated(),
  );
}

export function prudentialRatios(input: PrudentialInput): PrudentialRatios {
  const baseParts = netEquityParts(input.balances);
  const equityParts = [...baseParts, insiderDeduction(sumOfParts(baseParts), input)];
  const equityAmount = sumOfParts(equityParts);
  const equity = [figurePart('net_equity', 'Fonds propres nets (fonds patrimoniaux nets)', equityAmount)];
  return {
    netEquity: { amount: equityAmount, parts: equityParts },
    ratios: [
      solvency(equityParts, input),
      liquidity(input),
      fixedAssetCoverage(input),
      concentration(equity, equityAmount, input),
      insiders(equity, equityAmount, input),
    ],
    creditCaps: creditCapReview(input),
  };
}
