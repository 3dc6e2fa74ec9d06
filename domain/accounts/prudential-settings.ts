import type { FieldError } from '../errors';

/**
 * The thresholds and risk weights the COBAC prudential ratios are checked against, per enterprise
 * (docs/domain.md §10). Where the regulation gives a figure it is the default; where it was not found the
 * default is the product's documented choice. Rates are decimal strings (0.15 = 15 %).
 */
export interface RiskWeights {
  /** Loans to members (30–34) net of their provisions (39). */
  customer_loans: string;
  /** Member accounts in debit (35–38). */
  customer_debit_accounts: string;
  /** Third parties and accruals in debit (40–48, net of 49). */
  third_parties: string;
  /** Fixed assets net of depreciation (class 2). */
  fixed_assets: string;
  /** Treasury and interbank assets (51–58, net of 59): cash among them. */
  treasury: string;
}

export interface PrudentialSettings {
  /** EMF 2002/07: net equity ÷ weighted risks ≥ 10 %. */
  solvency_min: string;
  /** EMF 2002/14: liquid assets ÷ liabilities due within 3 months ≥ 100 %. */
  liquidity_min: string;
  /** Bank norm (no EMF figure found): permanent funds ÷ fixed assets ≥ 100 %. */
  fixed_asset_coverage_min: string;
  /** EMF 2002/08: one beneficiary ≤ 15 % of net equity (1st category). */
  concentration_max: string;
  /**
   * EMF 2002/10: insiders ≤ 20 % of net equity; 30 % for a 1st-category EMF whose insiders take no part in credit
   * decisions.
   */
  insiders_max: string;
  /** EMF 2002/10 Art. 3: an insider's exposure above this share of net equity is deducted from it, whole. */
  insider_deduction_max: string;
  /** Risk weights: NOT FOUND in the EMF texts; by default only the risks on members weigh. */
  risk_weights: RiskWeights;
}

export const defaultPrudentialSettings: PrudentialSettings = {
  solvency_min: '0.10',
  liquidity_min: '1.00',
  fixed_asset_coverage_min: '1.00',
  concentration_max: '0.15',
  insiders_max: '0.20',
  insider_deduction_max: '0.05',
  risk_weights: {
    customer_loans: '1',
    customer_debit_accounts: '1',
    third_parties: '0',
    fixed_assets: '0',
    treasury: '0',
  },
};

export type PrudentialOverrides = Partial<Omit<PrudentialSettings, 'risk_weights'>> & {
  risk_weights?: Partial<RiskWeights>;
};

/** The settings in force: the defaults with the enterprise's overrides on top. */
export function prudentialSettingsOf(overrides: PrudentialOverrides): PrudentialSettings {
  return {
    ...defaultPrudentialSettings,
    ...overrides,
    risk_weights: { ...defaultPrudentialSettings.risk_weights, ...overrides.risk_weights },
  };
}

export const thresholdKeys = [
  'solvency_min',
  'liquidity_min',
  'fixed_asset_coverage_min',
  'concentration_max',
  'insiders_max',
  'insider_deduction_max',
] as const;
export const riskWeightKeys = [
  'customer_loans',
  'customer_debit_accounts',
  'third_parties',
  'fixed_assets',
  'treasury',
] as const;

/** A rate with at most 4 decimals from 0 to `max`. */
const rateWithin = (text: string, max: number) => /^\d{1,2}(\.\d{1,4})?$/.test(text) && Number(text) <= max;

/**
 * What is wrong with a change of the settings, each on its field: thresholds above 0 and at most 10 (1 000 %),
 * a limit on exposures at most 1, weights from 0 to 1.5 (a weight above 100 % is how a supervisor marks a
 * riskier asset class; beyond 150 % is taken for a typing error).
 */
export function prudentialSettingsProblems(changes: PrudentialOverrides): FieldError[] {
  const problems: FieldError[] = [];
  for (const key of thresholdKeys) {
    const value = changes[key];
    if (value === undefined) continue;
    const max = key.endsWith('_max') ? 1 : 10;
    if (!rateWithin(value, max) || Number(value) === 0)
      problems.push({
        field: key,
        message: `${key} must be a decimal above 0 and at most ${max}, with at most 4 decimals, e.g. "0.15"`,
      });
  }
  for (const key of riskWeightKeys) {
    const value = changes.risk_weights?.[key];
    if (value !== undefined && !rateWithin(value, 1.5))
      problems.push({
        field: `risk_weights.${key}`,
        message: 'a risk weight must be a decimal from 0 to 1.5, with at most 4 decimals',
      });
  }
  return problems;
}
