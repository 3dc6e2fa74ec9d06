import type { Cooperative } from './cooperative';

export interface CreditInsuranceOutcome {
  /** The usury rate in force, set by direction and approved by the administrator. */
  usuryRate: { id: string; rate: string; effective_from: string };
  /** A loan product whose premium is spread over the installments. */
  product: string;
  /**
   * Its simulation of 500 000 XAF over 12 months: the premium, each installment's part and the TEG that includes it.
   */
  simulation: { insurance_premium: string; teg: string; installments: { insurance: string }[] };
}

/**
 * Credit insurance and the usury rate (docs/domain.md §14.6): direction sets the usury rate of the period (four eyes:
 * the administrator approves it), then a loan product with a credit insurance premium spread over its installments,
 * which the rate lets through, and simulates a loan of it.
 */
export async function showCreditInsurance(
  cooperative: Cooperative,
  today: string,
  log: (line: string) => void,
): Promise<CreditInsuranceOutcome> {
  const { direction, admin } = cooperative.staff;
  const enterprise = cooperative.enterpriseId;
  const request = await direction.session.post<{ id: string }>(
    'ask to set the usury rate',
    '/api/v1/loans/usury-rates/',
    {
      enterprise,
      rate: '60.94',
      effective_from: today,
      source_reference: "CNEF, taux d'usure des EMF, crédits à la consommation (démo)",
    },
  );
  await admin.session.post('approve the usury rate', `/api/v1/approvals/requests/${request.id}/approve/`, {
    reason: 'Taux publié vérifié',
  });
  const rates = await direction.session.get<{ results: CreditInsuranceOutcome['usuryRate'][] }>(
    'read the usury rate',
    '/api/v1/loans/usury-rates/',
    { enterprise },
  );
  const product = await direction.session.post<{ id: string }>('create the insured credit', '/api/v1/loans/products/', {
    enterprise,
    code: 'CRA',
    name: 'Crédit assuré',
    term_category: 'cta',
    method: 'constant_annuity',
    annual_rate: '0.18',
    min_amount: '100000',
    max_amount: '5000000',
    min_term_periods: 6,
    max_term_periods: 24,
    fee_rate: '0.01',
    penalty_rate: '0.12',
    insurance_rate: '0.012',
    insurance_collection: 'spread',
  });
  const simulation = await direction.session.post<CreditInsuranceOutcome['simulation']>(
    'simulate an insured credit',
    `/api/v1/loans/products/${product.id}/simulation/`,
    { amount: '500000', term_periods: 12 },
  );
  log(
    `${today}: usury rate ${rates.results[0]!.rate} % in force; insured credit CRA: 500 000 over 12 months, ` +
      `premium ${simulation.insurance_premium}, TEG ${simulation.teg} %`,
  );
  return { usuryRate: rates.results[0]!, product: product.id, simulation };
}
