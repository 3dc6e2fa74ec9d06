import * as yup from 'yup';
import {
  createRecurringEntry,
  deactivateRecurringEntry,
  proposeRecurringEntry,
  updateRecurringEntry,
  type RecurringEntryFields,
} from '../../../activities/accounting/recurring-entries.activity';
import { manualJournals } from '../../../domain/accounting/manual-entries';
import { recurringFrequencies } from '../../../domain/accounting/recurring-entries';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { enterpriseFilter, idParams, periodSchema } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import {
  draftLines,
  draftRefusals,
  labelSchema,
  linesSchema,
  readers,
  scopeOfLines,
  writers,
} from './manual-entries.routes';
import {
  manualEntriesQuery,
  manualEntrySchema,
  serializeManualEntry,
  type ManualEntryListRow,
} from './manual-entries.queries';
import {
  recurringEntryLoaders,
  recurringEntrySchema,
  serializeRecurringEntries,
  type RecurringEntryListRow,
} from './recurring-entries.queries';

/**
 * Recurring manual entries (docs/domain.md §12.7): models an accountant defines once, from which a draft manual
 * entry is proposed each period (by the enterprise's daily Schedule, or here on request). The drafts are then
 * submitted and validated as any manual entry. The same roles as the manual entries.
 */
const modelPath = '/api/v1/accounting/recurring-entries/{id}/';
const onModel = { module: 'accounting', load: recurringEntryLoaders.model, params: idParams } as const;

const patternSchema = () =>
  yup
    .string()
    .trim()
    .min(1)
    .max(60)
    .meta({ description: "The drafts' reference; each `{period}` becomes the period (`LOYER-{period}`)." });
const daySchema = () =>
  yup
    .number()
    .integer()
    .min(1)
    .max(31)
    .meta({ description: "The day of the period's month the draft is dated (the month's last day when shorter)." });
/** A model's wording and schedule as a body names them; creating and changing differ on `last_period` and lines. */
const modelFields = <
  B extends {
    journal?: (typeof manualJournals)[number];
    label?: string;
    reference_pattern?: string;
    frequency?: (typeof recurringFrequencies)[number];
    day_of_period?: number;
    first_period?: string;
  },
>(
  body: B,
): {
  journal: B['journal'];
  label: B['label'];
  referencePattern: B['reference_pattern'];
  frequency: B['frequency'];
  dayOfPeriod: B['day_of_period'];
  firstPeriod: B['first_period'];
} => ({
  journal: body.journal,
  label: body.label,
  referencePattern: body.reference_pattern,
  frequency: body.frequency,
  dayOfPeriod: body.day_of_period,
  firstPeriod: body.first_period,
});
const modelRefusals = [
  ...draftRefusals.filter(
    (code) => !['exercice_closed', 'no_exercice_for_date', 'as_of_after_business_date', 'day_closed'].includes(code),
  ),
  'manual_entry_unbalanced',
  'recurring_entry_periods',
] as const;

const answer = async (knex: Parameters<typeof serializeRecurringEntries>[0], id: string) =>
  (
    await serializeRecurringEntries(knex, [
      (await knex('recurring_entries').where({ id }).first()) as RecurringEntryListRow,
    ])
  )[0]!;

const listRoute = defineRoute({
  method: 'get',
  path: '/api/v1/accounting/recurring-entries/',
  module: 'accounting',
  operationId: 'listRecurringEntries',
  summary: 'List recurring entry models',
  access: readers,
  query: listQuerySchema([], { enterprise: enterpriseFilter, active: yup.boolean().optional() }),
  response: pageSchema(recurringEntrySchema),
  errorStatuses: [401, 403],
  refusals: ['page_not_found'],
  handler: async ({ query, principal, deps, ctx }) => {
    const visible = scopeToVisible(deps.knex('recurring_entries as r').select('r.*'), principal, {
      enterprise: 'r.enterprise_id',
      branch: 'r.branch_id',
    });
    const builder = whereFilters(visible, query, { enterprise: 'r.enterprise_id', active: 'r.active' });
    const page = await paginateRows<RecurringEntryListRow>(
      builder.orderBy([{ column: 'r.created_at', order: 'desc' }, 'r.id']),
      query,
      new URL(ctx.href),
    );
    return { ...page, results: await serializeRecurringEntries(deps.knex, page.results) };
  },
});

const createRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/recurring-entries/',
  module: 'accounting',
  operationId: 'createRecurringEntry',
  summary:
    "Define a recurring entry model (the monthly rent): its lines are checked as a manual entry's, and must balance",
  access: writers,
  status: 201,
  location: modelPath,
  body: yup.object({
    enterprise: yup.string().uuid().required(),
    journal: yup.string().oneOf(manualJournals).default('OD'),
    label: labelSchema().required(),
    reference_pattern: patternSchema().required(),
    frequency: yup.string().oneOf(recurringFrequencies).default('monthly'),
    day_of_period: daySchema().required(),
    first_period: periodSchema().required(),
    last_period: periodSchema().nullable().default(null),
    lines: linesSchema().required(),
  }),
  response: recurringEntrySchema,
  errorStatuses: [401, 403, 404, 422],
  refusals: modelRefusals,
  handler: async ({ body, principal, deps, authorize }) => {
    const lines = draftLines(body.lines);
    authorize(scopeOfLines(body.enterprise, lines), 'The enterprise');
    const id = await createRecurringEntry(deps.activities, principal, {
      enterpriseId: body.enterprise,
      ...modelFields(body),
      lastPeriod: body.last_period ?? null,
      lines,
    });
    return answer(deps.knex, id);
  },
});

const detailRoute = defineRoute({
  method: 'get',
  path: modelPath,
  ...onModel,
  operationId: 'getRecurringEntry',
  summary: 'A recurring entry model: its lines and the drafts it proposed',
  access: readers,
  response: recurringEntrySchema,
  errorStatuses: [401, 403, 404],
  handler: async ({ resource, deps }) => (await serializeRecurringEntries(deps.knex, [resource]))[0]!,
});

const updateRoute = defineRoute({
  method: 'patch',
  path: modelPath,
  ...onModel,
  operationId: 'updateRecurringEntry',
  summary: 'Change a model; `lines` replaces them all. Drafts already proposed keep theirs',
  access: writers,
  body: yup.object({
    journal: yup.string().oneOf(manualJournals).optional(),
    label: labelSchema().optional(),
    reference_pattern: patternSchema().optional(),
    frequency: yup.string().oneOf(recurringFrequencies).optional(),
    day_of_period: daySchema().optional(),
    first_period: periodSchema().optional(),
    last_period: periodSchema().nullable().optional(),
    lines: linesSchema().optional(),
  }),
  response: recurringEntrySchema,
  errorStatuses: [401, 403, 404, 422],
  refusals: modelRefusals,
  handler: async ({ resource, body, principal, deps, authorize }) => {
    const lines = body.lines === undefined ? undefined : draftLines(body.lines);
    if (lines !== undefined) authorize(scopeOfLines(resource.enterprise_id, lines), 'The enterprise');
    const changes: Partial<RecurringEntryFields> = {
      ...modelFields(body),
      lastPeriod: body.last_period,
      lines,
    };
    await updateRecurringEntry(
      deps.activities,
      principal,
      resource.id,
      Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    );
    return answer(deps.knex, resource.id);
  },
});

const deactivateRoute = defineRoute({
  method: 'delete',
  path: modelPath,
  ...onModel,
  operationId: 'deactivateRecurringEntry',
  summary: 'Deactivate a model: it proposes no more drafts; it is kept with those it proposed',
  access: writers,
  status: 204,
  errorStatuses: [401, 403, 404],
  handler: async ({ resource, principal, deps }) => {
    await deactivateRecurringEntry(deps.activities, principal, resource.id);
    return undefined;
  },
});

const proposalRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/recurring-entries/{id}/proposals/',
  ...onModel,
  operationId: 'proposeRecurringEntry',
  summary:
    "Propose now the model's draft manual entry of a period (once: the draft already proposed is answered again)",
  description:
    "The draft is dated the model's day in the period, never after the " +
    'business date. It is then submitted and validated as any manual entry.',
  access: writers,
  status: 201,
  location: '/api/v1/accounting/manual-entries/{id}/',
  body: yup.object({ period: periodSchema().required() }),
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: [...draftRefusals, 'recurring_entry_inactive', 'recurring_entry_not_due'],
  handler: async ({ resource, body, principal, deps }) => {
    const { manualEntryId } = await proposeRecurringEntry(deps.activities, principal, {
      id: resource.id,
      period: body.period,
    });
    return serializeManualEntry(
      deps.knex,
      (await manualEntriesQuery(deps.knex).where('m.id', manualEntryId).first()) as ManualEntryListRow,
    );
  },
});

export const recurringEntryRoutes = [listRoute, createRoute, detailRoute, updateRoute, deactivateRoute, proposalRoute];
