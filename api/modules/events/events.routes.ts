import type { Knex } from 'knex';
import * as yup from 'yup';
import { configureRule } from '../../../activities/events/configure-rule.activity';
import { accountRoles, eventKinds } from '../../../domain/events/rules';
import {
  businessEventsQuery,
  ruleById,
  ruleColumns,
  type EventRow,
  type RuleConfigRow,
} from '../../../activities/events/events.queries';
import { requireVisible } from '../../auth/access';
import type { Principal } from '../../auth/principal';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { defineRoute } from '../../route';
import { bookScopeFields } from '../book-scope';
import { dateResponse, enterpriseFilter, idParams, isoDate, timestampResponse, nullableId } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { ledgerLines } from '../../../activities/accounts/ledger.queries';
import { journalEntrySchema } from '../accounts/ledger.schemas';
import { moneyResponse } from '../money.schemas';
import { accountChoiceRefusals } from '../refusal-lists';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import { eventLoaders } from './events.queries';

const businessEventFields = {
  id: yup.string().uuid().required(),
  ...bookScopeFields('null for an enterprise-level event (share capital).'),
  kind: yup.string().oneOf(eventKinds).required(),
  amount: moneyResponse(),
  payload: yup.mixed<Record<string, unknown>>().defined().meta({
    description: 'What the event is about, a JSON object whose keys depend on the kind (loan, subscription, channel…).',
  }),
  business_date: dateResponse(),
  actor: nullableId('null for an event of the system (a provisioning run).'),
  idempotency_key: yup
    .string()
    .required()
    .meta({ description: 'The key that makes the operation that recorded it idempotent.' }),
  recorded_at: timestampResponse(),
  journal_entry: nullableId('The entry it produced (not its reversals); null when the rule of its kind was inactive.'),
};

const businessEventSchema = yup.object(businessEventFields).meta({ component: 'BusinessEvent' });

const businessEventDetailSchema = yup
  .object({
    ...businessEventFields,
    entries: yup
      .array(journalEntrySchema)
      .required()
      .meta({ description: 'Every entry of the event, reversals and replays included, oldest first.' }),
  })
  .meta({ component: 'BusinessEventDetail' });

function serializeEvent(row: EventRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    branch: row.branch_id,
    kind: row.kind,
    amount: row.amount,
    payload: row.payload,
    business_date: row.business_date,
    actor: row.actor_id,
    idempotency_key: row.idempotency_key,
    recorded_at: row.created_at.toISOString(),
    journal_entry: row.journal_entry,
  };
}

/** The events the principal sees, newest first. */
const visibleEvents = (knex: Knex, principal: Principal) =>
  scopeToVisible(businessEventsQuery(knex), principal, { enterprise: 'ev.enterprise_id', branch: 'ev.branch_id' });

const legSide = yup
  .object({
    account: yup
      .string()
      .matches(/^\d{2,12}$/, '${path} must be an account code')
      .optional(),
    role: yup.string().oneOf(accountRoles).optional(),
  })
  .test(
    'one-side',
    '${path} names either an account or a role',
    (side) => (side.account === undefined) !== (side.role === undefined),
  );

const accountRefSchema = yup
  .object({
    account: yup.string().optional().meta({ description: 'A leaf account of the chart…' }),
    role: yup
      .string()
      .oneOf(accountRoles)
      .optional()
      .meta({ description: '…or an account role, which the product involved resolves.' }),
  })
  .meta({ component: 'RuleAccountRef', description: 'One side of a leg: exactly one of account and role.' });

const ruleConfigSchema = yup
  .object({
    id: yup.string().uuid().required(),
    enterprise: yup.string().uuid().required(),
    kind: yup.string().oneOf(eventKinds).required(),
    version: yup.number().integer().required(),
    legs: yup
      .array(
        yup.object({ debit: accountRefSchema.required(), credit: accountRefSchema.required() }).meta({
          component: 'RuleLeg',
          description: "A leg moves the event's whole amount from its credit to its debit account.",
        }),
      )
      .required(),
    is_active: yup
      .boolean()
      .required()
      .meta({ description: 'An inactive rule posts nothing: its events stay not posted.' }),
    reason: yup.string().defined(),
    created_at: timestampResponse(),
    created_by: nullableId('null for the default rules.'),
  })
  .meta({ component: 'RuleConfig' });

function serializeRule(row: RuleConfigRow) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    kind: row.kind,
    version: row.version,
    legs: row.legs.map((leg) => ({ debit: sideOf(leg.debit), credit: sideOf(leg.credit) })),
    is_active: row.is_active,
    reason: row.reason,
    created_at: row.created_at.toISOString(),
    created_by: row.created_by,
  };
}

/** The business event log and the accounting rules that turn events into entries. */
export const eventRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/events/',
    module: 'events',
    operationId: 'listBusinessEvents',
    summary: 'List business events, with the journal entry each produced',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: enterpriseFilter,
      kind: yup.string().oneOf(eventKinds).optional(),
      branch: yup.string().uuid().optional(),
      date_from: isoDate().optional(),
      date_to: isoDate().optional(),
      status: yup
        .string()
        .oneOf(['posted', 'not_posted'])
        .optional()
        .meta({ description: 'not_posted: the rule of its kind was inactive.' }),
    }),
    response: pageSchema(businessEventSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = visibleEvents(deps.knex, principal);
      whereFilters(rows, query, {
        enterprise: 'ev.enterprise_id',
        kind: 'ev.kind',
        branch: 'ev.branch_id',
        date_from: ['ev.business_date', '>='],
        date_to: ['ev.business_date', '<='],
      });
      if (query.status !== undefined)
        rows.where((b) => (query.status === 'posted' ? b.whereNotNull('je.id') : b.whereNull('je.id')));
      const page = await paginateRows<EventRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeEvent) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/rule-configs/',
    module: 'events',
    operationId: 'listRuleConfigs',
    summary: 'The accounting rules in force (latest version of each kind)',
    access: 'authenticated',
    query: listQuerySchema([], { enterprise: enterpriseFilter, kind: yup.string().oneOf(eventKinds).optional() }),
    response: pageSchema(ruleConfigSchema),
    errorStatuses: [401],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(
        deps
          .knex('accounting_rule_configs as r')
          .distinctOn('r.enterprise_id', 'r.kind')
          .select(ruleColumns.map((column) => `r.${column}`)),
        principal,
        { enterprise: 'r.enterprise_id' },
      ).orderBy([{ column: 'r.enterprise_id' }, { column: 'r.kind' }, { column: 'r.version', order: 'desc' }]);
      whereFilters(rows, query, { enterprise: 'r.enterprise_id', kind: 'r.kind' });
      const page = await paginateRows<RuleConfigRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRule) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/rule-configs/history/',
    module: 'events',
    operationId: 'listRuleConfigHistory',
    summary: 'Every version of one rule, newest first',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: yup.string().uuid().required(),
      kind: yup.string().oneOf(eventKinds).required(),
    }),
    response: pageSchema(ruleConfigSchema),
    errorStatuses: [401, 404],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      requireVisible(principal, { enterpriseId: query.enterprise }, 'The enterprise');
      const rows = deps
        .knex('accounting_rule_configs')
        .where({ enterprise_id: query.enterprise, kind: query.kind })
        .select(ruleColumns)
        .orderBy('version', 'desc');
      const page = await paginateRows<RuleConfigRow>(rows, query, new URL(ctx.href));
      return { ...page, results: page.results.map(serializeRule) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/events/rule-configs/{id}/',
    module: 'events',
    operationId: 'getRuleConfig',
    summary: 'One version of a rule',
    access: 'authenticated',
    load: eventLoaders.rule,
    params: idParams,
    response: ruleConfigSchema,
    errorStatuses: [401, 404],
    handler: ({ resource }) => serializeRule(resource),
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/events/rule-configs/',
    module: 'events',
    operationId: 'configureRule',
    summary: 'Configure a rule: a new version with its accounts and state (direction, administrators)',
    description:
      "Each side names a leaf account of the enterprise's chart or " +
      'an account role. Entries already posted keep their version.',
    access: ['direction', 'admin'],
    status: 201,
    location: '/api/v1/events/rule-configs/{id}/',
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      kind: yup.string().oneOf(eventKinds).required(),
      legs: yup
        .array(yup.object({ debit: legSide.required(), credit: legSide.required() }))
        .min(1)
        .max(5)
        .required(),
      is_active: yup.boolean().default(true),
      reason: yup.string().trim().required().min(5).max(500),
    }),
    response: ruleConfigSchema,
    ...fourEyesRoute,
    errorStatuses: [401, 403, 404, 409, 422],
    refusals: [...accountChoiceRefusals, 'rule_changed_concurrently', ...fourEyesRefusals],
    handler: async ({ body, principal: actor, deps, ctx, authorize }) => {
      authorize({ enterpriseId: body.enterprise }, 'The enterprise');
      const legs = body.legs.map((leg) => ({ debit: sideOf(leg.debit), credit: sideOf(leg.credit) }));
      const change = { kind: body.kind, legs, active: body.is_active, reason: body.reason };
      // A rule decides where every later entry of its kind is posted: under four eyes (docs/domain.md §11).
      return runOrRequest(
        { deps, principal: actor, ctx },
        {
          operation: 'accounting_rule.change',
          payload: { enterpriseId: body.enterprise, change },
          scope: { enterpriseId: body.enterprise },
          summary: `Configure the rule of ${body.kind}${body.is_active ? '' : ' (inactive)'}: ${body.reason}`,
        },
        async () =>
          serializeRule(
            (await ruleById(deps.knex, (await configureRule(deps.activities, actor, body.enterprise, change)).id))!,
          ),
      );
    },
  }),
  // Last: `{id}` would otherwise match `rule-configs/` too.
  defineRoute({
    method: 'get',
    path: '/api/v1/events/{id}/',
    module: 'events',
    operationId: 'getBusinessEvent',
    summary: 'Event detail, with the lines of the entries it produced',
    access: 'authenticated',
    load: eventLoaders.event,
    params: idParams,
    response: businessEventDetailSchema,
    errorStatuses: [401, 404],
    handler: async ({ resource: event, deps }) => {
      const entries = await deps
        .knex('journal_entries')
        .where({ event_id: event.id })
        .orderBy('created_at')
        .pluck('id');
      return {
        ...serializeEvent(event),
        entries: (await ledgerLines(deps.knex, entries)).map((entry) => ({
          ...entry,
          created_at: entry.created_at.toISOString(),
        })),
      };
    },
  }),
];

function sideOf(side: {
  account?: string;
  role?: (typeof accountRoles)[number];
}): { account: string } | { role: (typeof accountRoles)[number] } {
  return side.account !== undefined ? { account: side.account } : { role: side.role! };
}
