import * as yup from 'yup';
import { businessDateOf } from '../../../activities/enterprise/configuration.activity';
import { pendingWithdrawals, registerLine, registerQuery, registerTotals } from '../../../activities/shares/capital';
import { roles } from '../../../domain/access';
import { Money, toFrancs } from '../../../domain/money';
import { requireRole } from '../../auth/access';
import { listQuerySchema, paginateRows } from '../../pagination';
import { defineRoute } from '../../route';
import { memberLoaders } from '../members/members.queries';
import { dateResponse, isoDate } from '../common.schemas';
import { moneyResponse } from '../money.schemas';

const holdingSchema = yup.object({
  share_type: yup.string().uuid().required(),
  code: yup.string().required(),
  name: yup.string().required(),
  shares: yup.number().integer().required(),
  subscribed: moneyResponse(),
  paid: moneyResponse(),
  unpaid: moneyResponse(),
});

const lineSchema = yup.object({
  client: yup.string().uuid().required(),
  member_number: yup.string().required(),
  name: yup.string().required(),
  branch: yup.string().uuid().required(),
  votes: yup.number().integer().required().meta({
    description: '1 for a member holding voting shares with no payment overdue (one member, one vote), else 0.',
  }),
  shares: yup.number().integer().required(),
  subscribed: moneyResponse(),
  paid: moneyResponse(),
  unpaid: moneyResponse(),
  types: yup.array(holdingSchema.shape({ payment_overdue: yup.boolean().required() })).required(),
});

const totalsSchema = yup.object({
  members: yup.number().integer().required(),
  votes: yup.number().integer().required(),
  shares: yup.number().integer().required(),
  subscribed: moneyResponse(),
  paid: moneyResponse().meta({ description: 'Paid-up capital: what the 10 % credit cap of COBAC R-2017/08 reads.' }),
  unpaid: moneyResponse(),
  types: yup.array(holdingSchema).required(),
});

/** The capital register of an enterprise at a date, and one member's capital position. */
export const shareRegisterRoutes = [
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/register/',
    module: 'shares',
    operationId: 'getCapitalRegister',
    summary:
      'The capital register at a date: members, their shares by type, ' +
      'subscribed, paid, unpaid, votes; with the totals (enterprise-wide roles)',
    description:
      'Rebuilt from the dated history: subscriptions at their date, ' +
      'payments at their business date, withdrawals at their effective date.',
    access: 'authenticated',
    query: listQuerySchema([], {
      enterprise: yup.string().uuid().required(),
      date: isoDate().optional().meta({ description: 'Default: the business date.' }),
    }),
    response: yup
      .object({
        enterprise: yup.string().uuid().required(),
        date: dateResponse(),
        totals: totalsSchema,
        count: yup.number().integer().required(),
        next: yup.string().nullable().defined(),
        previous: yup.string().nullable().defined(),
        results: yup.array(lineSchema).required(),
      })
      .meta({
        component: 'CapitalRegister',
        description: 'A page of the register, with the totals of the whole register.',
      }),
    errorStatuses: [401, 403, 404],
    refusals: ['page_not_found'],
    handler: async ({ query, principal, deps, ctx }) => {
      // The register is the enterprise's: a role in one branch only does not reach it.
      requireRole(principal, roles, { enterpriseId: query.enterprise }, 'The enterprise');
      const date = query.date ?? (await businessDateOf(deps.knex, query.enterprise, deps.clock()));
      const [totals, page] = await Promise.all([
        registerTotals(deps.knex, query.enterprise, date),
        paginateRows<Parameters<typeof registerLine>[0]>(
          registerQuery(deps.knex, query.enterprise, date),
          query,
          new URL(ctx.href),
        ),
      ]);
      return { enterprise: query.enterprise, date, totals, ...page, results: page.results.map(registerLine) };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/api/v1/shares/positions/',
    module: 'shares',
    operationId: 'getCapitalPosition',
    summary:
      "A member's capital position at the business date: shares " +
      'by type, paid and unpaid, in notice, refunds owed, vote',
    access: 'authenticated',
    query: yup.object({ client: yup.string().uuid().required() }),
    response: yup
      .object({
        client: yup.string().uuid().required(),
        member_number: yup.string().required(),
        date: dateResponse(),
        founder: yup.boolean().required(),
        votes: yup.number().integer().required(),
        shares: yup.number().integer().required(),
        subscribed: moneyResponse(),
        paid: moneyResponse(),
        unpaid: moneyResponse(),
        refunds_owed: moneyResponse(),
        types: yup
          .array(
            holdingSchema.shape({
              payment_overdue: yup.boolean().required(),
              shares_in_notice: yup.number().integer().required(),
              refund_owed: moneyResponse(),
            }),
          )
          .required(),
      })
      .meta({ component: 'CapitalPosition' }),
    errorStatuses: [401, 404],
    handler: async ({ query, deps, load }) => {
      const client = await load(memberLoaders.client, query.client);
      const date = await businessDateOf(deps.knex, client.enterpriseId, deps.clock());
      const [row, pending] = await Promise.all([
        registerQuery(deps.knex, client.enterpriseId, date, client.id).first(),
        pendingWithdrawals(deps.knex, client.id),
      ]);
      const line = row === undefined ? undefined : registerLine(row);
      const refundsOwed = [...pending.values()].reduce((sum, entry) => sum.plus(entry.refundsOwed), new Money(0));
      return {
        client: client.id,
        member_number: client.memberNumber,
        date,
        founder: client.founder,
        votes: line?.votes ?? 0,
        shares: line?.shares ?? 0,
        subscribed: line?.subscribed ?? '0',
        paid: line?.paid ?? '0',
        unpaid: line?.unpaid ?? '0',
        refunds_owed: toFrancs(refundsOwed, Money.ROUND_HALF_UP),
        types: (line?.types ?? []).map((holding) => ({
          ...holding,
          shares_in_notice: pending.get(holding.share_type)?.sharesInNotice ?? 0,
          refund_owed: toFrancs(pending.get(holding.share_type)?.refundsOwed ?? new Money(0), Money.ROUND_HALF_UP),
        })),
      };
    },
  }),
];
