import * as yup from 'yup';
import {
  prudentialSettingsFor,
  updatePrudentialSettings,
  type PrudentialSettingsState,
} from '../../../activities/enterprise/prudential-settings.activity';
import { defineRoute } from '../../route';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { enterpriseLoaders } from './enterprise.queries';
import { timestampResponse } from '../common.schemas';

const decimal = (description: string) => yup.string().strict(true).meta({ description, example: '0.15' });
/** One decimal field per description: required in the answer, optional in a change. */
function fieldsOf<K extends string>(descriptions: Record<K, string>, required: boolean): Record<K, yup.StringSchema> {
  const field = (description: string) => (required ? decimal(description).required() : decimal(description).optional());
  return Object.fromEntries(
    Object.entries<string>(descriptions).map(([key, description]) => [key, field(description)]),
  ) as Record<K, yup.StringSchema>;
}

const weightDescriptions = {
  customer_loans: 'Loans to members (30–34) net of provisions (39). Default 1.',
  customer_debit_accounts: 'Member accounts in debit (35–38). Default 1.',
  third_parties: 'Third parties and accruals in debit (40–48 − 49). Default 0.',
  fixed_assets: 'Fixed assets net (class 2). Default 0.',
  treasury: 'Treasury and interbank (51–58 − 59), cash included. Default 0.',
};

const thresholdDescriptions = {
  solvency_min: 'Net equity ÷ weighted risks, at least (EMF 2002/07: 0.10).',
  liquidity_min: 'Liquid assets ÷ liabilities due within 3 months, at least (EMF 2002/14: 1.00).',
  fixed_asset_coverage_min: 'Permanent funds ÷ fixed assets, at least (a bank norm, no EMF figure found: 1.00).',
  concentration_max: 'One beneficiary ÷ net equity, at most (EMF 2002/08, 1st category: 0.15).',
  insiders_max:
    'Insiders ÷ net equity, at most (EMF 2002/10: 0.20; 0.30 for a ' +
    '1st-category EMF whose insiders take no part in credit decisions).',
  insider_deduction_max:
    "One insider's exposure ÷ net equity above which the whole " +
    'exposure is deducted from net equity (EMF 2002/10 Art. 3: 0.05).',
};

const prudentialSettingsSchema = yup
  .object({
    enterprise: yup.string().uuid().required(),
    ...fieldsOf(thresholdDescriptions, true),
    risk_weights: yup
      .object(fieldsOf(weightDescriptions, true))
      .required()
      .meta({ component: 'PrudentialRiskWeights' }),
    changed: yup.array(yup.string().required()).required().meta({
      description: 'The settings the enterprise changed from the defaults (risk weights as risk_weights.{name}).',
    }),
    updated_at: timestampResponse().nullable().meta({ description: 'null: the defaults, never changed.' }),
  })
  .meta({ component: 'PrudentialSettings' });

function serializeSettings(state: PrudentialSettingsState) {
  const { risk_weights: weights, ...thresholds } = state.overrides;
  return {
    enterprise: state.enterpriseId,
    ...state.settings,
    changed: [...Object.keys(thresholds), ...Object.keys(weights ?? {}).map((key) => `risk_weights.${key}`)].sort(),
    updated_at: state.updatedAt?.toISOString() ?? null,
  };
}

const nestedParams = yup.object({ enterprise_pk: yup.string().uuid().required() });

/**
 * The thresholds and risk weights of the COBAC prudential ratios (docs/domain.md §10), per enterprise; changes audited.
 */
export const prudentialSettingsRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/prudential-settings/',
    module: 'enterprise',
    operationId: 'getPrudentialSettings',
    summary:
      'Thresholds and risk weights of the COBAC prudential ratios in force (the documented defaults until changed)',
    access: 'authenticated',
    load: enterpriseLoaders.enterprise,
    params: nestedParams,
    response: prudentialSettingsSchema,
    errorStatuses: [401, 404],
    handler: async ({ params, deps }) => {
      return serializeSettings(await prudentialSettingsFor(deps.knex, params.enterprise_pk));
    },
  }),
  defineRoute({
    method: 'patch',
    path: '/api/v1/enterprise/enterprises/{enterprise_pk}/prudential-settings/',
    module: 'enterprise',
    operationId: 'updatePrudentialSettings',
    summary: 'Change thresholds or risk weights (direction, administrators); audited',
    description:
      'Thresholds are decimals above 0 (limits on exposures at most 1, others at most 10); risk ' +
      'weights from 0 to 1.5; at most 4 decimals. A risk weight sent replaces that weight only.',
    access: ['direction', 'admin'],
    load: enterpriseLoaders.enterprise,
    params: nestedParams,
    body: yup.object({
      ...fieldsOf(thresholdDescriptions, false),
      risk_weights: yup
        .object(fieldsOf(weightDescriptions, false))
        .default(undefined) // a yup object defaults to {}: absent must stay absent
        .optional(),
    }),
    response: prudentialSettingsSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404],
    refusals: [...fourEyesRefusals],
    handler: async ({ params, body, principal: actor, deps, ctx }) => {
      const enterpriseId = params.enterprise_pk;
      await prudentialSettingsFor(deps.knex, enterpriseId);
      const riskWeights =
        body.risk_weights === undefined
          ? undefined
          : Object.fromEntries(Object.entries(body.risk_weights).filter(([, value]) => value !== undefined));
      const changes = Object.fromEntries(
        Object.entries({ ...body, risk_weights: riskWeights }).filter(([, value]) => value !== undefined),
      );
      // Loosening a threshold can hide a breach from the board: under four eyes (docs/domain.md §11).
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'prudential_settings.change',
          payload: { enterpriseId, changes },
          scope: { enterpriseId },
          summary: `Change the prudential settings (${Object.keys(changes).sort().join(', ')})`,
        },
        async () => serializeSettings(await updatePrudentialSettings(deps.activities, actor, enterpriseId, changes)),
      );
    },
  }),
];
