import type { Knex } from 'knex';
import * as yup from 'yup';
import { configureRule } from '../../activities/ledger/configure-rule.activity';
import { accountRoles, eventKinds } from '../../domain/accounting/rules';
import { NotFoundError } from '../../domain/errors';
import { requireRole, requireVisible, signedIn } from '../auth/access';
import type { Principal } from '../auth/principal';
import { listQuerySchema, paginateRows } from '../pagination';
import { defineRoute } from '../route';
import { enterpriseFilter, idParams, isoDate } from './common.schemas';
import { scopeToVisible } from './enterprise-scope';
import { ledgerLines } from './ledger-queries';

const eventColumns = ['ev.id', 'ev.enterprise_id as enterprise', 'ev.branch_id as branch', 'ev.kind', 'ev.amount', 'ev.payload', 'ev.business_date', 'ev.actor_id as actor', 'ev.idempotency_key', 'ev.created_at as recorded_at'];

/** Events with the entry they produced (the first, not its reversals), newest first. */
function eventQuery(knex: Knex, principal: Principal) {
  const query = knex('business_event_logs as ev')
    .leftJoin('journal_entries as je', (join) => join.on('je.event_id', 'ev.id').andOnNull('je.reverses_entry_id'))
    .select([...eventColumns, 'je.id as journal_entry'])
    .distinctOn('ev.created_at', 'ev.id')
    .orderBy([{ column: 'ev.created_at', order: 'desc' }, { column: 'ev.id', order: 'asc' }]);
  return scopeToVisible(query, principal, { enterprise: 'ev.enterprise_id', branch: 'ev.branch_id' });
}

const legSide = yup
  .object({
    account: yup.string().matches(/^\d{2,12}$/, '${path} must be an account code').optional(),
    role: yup.string().oneOf(accountRoles).optional(),
  })
  .test('one-side', '${path} names either an account or a role', (side) => (side.account === undefined) !== (side.role === undefined));

function serializeRule(row: { id: string; enterprise_id?: string; kind: string; version: number; legs: unknown; is_active: boolean; reason?: string; created_at?: Date; created_by?: string | null }) {
  return {
    id: row.id,
    enterprise: row.enterprise_id,
    kind: row.kind,
    version: row.version,
    legs: row.legs,
    is_active: row.is_active,
    reason: row.reason ?? '',
    created_at: row.created_at?.toISOString(),
    created_by: row.created_by ?? null,
  };
}

const ruleColumns = ['id', 'enterprise_id', 'kind', 'version', 'legs', 'is_active', 'reason', 'created_at', 'created_by'];

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
      status: yup.string().oneOf(['posted', 'not_posted']).optional().meta({ description: 'not_posted: the rule of its kind was inactive.' }),
    }),
    errorStatuses: [401],
    handler: ({ query, principal, deps, ctx }) => {
      const rows = eventQuery(deps.knex, signedIn(principal));
      if (query.enterprise !== undefined) rows.where('ev.enterprise_id', query.enterprise);
      if (query.kind !== undefined) rows.where('ev.kind', query.kind);
      if (query.branch !== undefined) rows.where('ev.branch_id', query.branch);
      if (query.date_from !== undefined) rows.where('ev.business_date', '>=', query.date_from);
      if (query.date_to !== undefined) rows.where('ev.business_date', '<=', query.date_to);
      if (query.status !== undefined) rows.where((b) => (query.status === 'posted' ? b.whereNotNull('je.id') : b.whereNull('je.id')));
      return paginateRows(rows, query, new URL(ctx.href));
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
    errorStatuses: [401],
    handler: async ({ query, principal, deps, ctx }) => {
      const rows = scopeToVisible(
        deps.knex('accounting_rule_configs as r').distinctOn('r.enterprise_id', 'r.kind').select(ruleColumns.map((column) => `r.${column}`)),
        signedIn(principal),
        { enterprise: 'r.enterprise_id' },
      ).orderBy([{ column: 'r.enterprise_id' }, { column: 'r.kind' }, { column: 'r.version', order: 'desc' }]);
      if (query.enterprise !== undefined) rows.where('r.enterprise_id', query.enterprise);
      if (query.kind !== undefined) rows.where('r.kind', query.kind);
      const page = await paginateRows<Parameters<typeof serializeRule>[0]>(rows, query, new URL(ctx.href));
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
    query: listQuerySchema([], { enterprise: yup.string().uuid().required(), kind: yup.string().oneOf(eventKinds).required() }),
    errorStatuses: [401, 404],
    handler: async ({ query, principal, deps, ctx }) => {
      requireVisible(signedIn(principal), { enterpriseId: query.enterprise }, 'The enterprise');
      const rows = deps.knex('accounting_rule_configs').where({ enterprise_id: query.enterprise, kind: query.kind }).select(ruleColumns).orderBy('version', 'desc');
      const page = await paginateRows<Parameters<typeof serializeRule>[0]>(rows, query, new URL(ctx.href));
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
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const rule = await deps.knex('accounting_rule_configs').where({ id: params.id }).first(ruleColumns);
      if (rule === undefined) throw new NotFoundError('The rule');
      requireVisible(signedIn(principal), { enterpriseId: rule.enterprise_id }, 'The rule');
      return serializeRule(rule);
    },
  }),
  defineRoute({
    method: 'post',
    path: '/api/v1/events/rule-configs/',
    module: 'events',
    operationId: 'configureRule',
    summary: 'Configure a rule: a new version with its accounts and state (direction, administrators)',
    description: 'Each side names a leaf account of the enterprise\'s chart or an account role. Entries already posted keep their version.',
    access: ['direction', 'admin'],
    status: 201,
    body: yup.object({
      enterprise: yup.string().uuid().required(),
      kind: yup.string().oneOf(eventKinds).required(),
      legs: yup.array(yup.object({ debit: legSide.required(), credit: legSide.required() })).min(1).max(5).required(),
      is_active: yup.boolean().default(true),
      reason: yup.string().trim().required().min(5).max(500),
    }),
    errorStatuses: [401, 403, 404, 409, 422],
    handler: async ({ body, principal, deps }) => {
      const actor = signedIn(principal);
      requireRole(actor, ['direction', 'admin'], { enterpriseId: body.enterprise }, 'The enterprise');
      const legs = body.legs.map((leg) => ({ debit: sideOf(leg.debit), credit: sideOf(leg.credit) }));
      const rule = await configureRule(deps.activities, actor, body.enterprise, { kind: body.kind, legs, active: body.is_active, reason: body.reason });
      return serializeRule({ ...rule, enterprise_id: body.enterprise });
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
    params: idParams,
    errorStatuses: [401, 404],
    handler: async ({ params, principal, deps }) => {
      const event = await eventQuery(deps.knex, signedIn(principal)).where('ev.id', params.id).first();
      if (event === undefined) throw new NotFoundError('The event');
      const entries = await deps.knex('journal_entries').where({ event_id: params.id }).orderBy('created_at').pluck('id');
      return { ...event, entries: await ledgerLines(deps.knex, entries) };
    },
  }),
];

function sideOf(side: { account?: string; role?: (typeof accountRoles)[number] }) {
  return side.account !== undefined ? { account: side.account } : { role: side.role! };
}
