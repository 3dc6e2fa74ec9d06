import type { Knex } from 'knex';
import type { IsoDate } from '../../domain/calendar';
import { Money, toFrancs } from '../../domain/money';
import { votesOf } from '../../domain/shares/share-type';

/**
 * The capital register: what members hold at a date, rebuilt from the dated history (subscriptions on their
 * date, payments on their business date, withdrawals on their effective date), so any past date is answerable. A
 * subscription brought in by an import counts what was paid before the cut-over (`opening_paid`) from its date;
 * a cancelled import's subscriptions hold nothing.
 */

/** Paid-up capital (payments net of the paid value of withdrawn shares): what COBAC's 10 % credit cap reads. */
export async function paidUpCapital(trx: Knex | Knex.Transaction, enterpriseId: string): Promise<Money> {
  const row = await trx('share_subscriptions')
    .where({ enterprise_id: enterpriseId })
    .first(trx.raw('COALESCE(SUM(paid_amount - withdrawn_paid), 0) AS total'));
  return new Money(row.total as string);
}

/**
 * One row per (member, share type) held at `date`: shares, the amount subscribed, paid and whether a payment
 * is overdue (unpaid after its due date). `clientId` narrows it to one member.
 */
function holdingsAt(knex: Knex, enterpriseId: string, date: IsoDate, clientId: string | null): Knex.Raw {
  return knex.raw(
    `SELECT s.client_id, s.share_type_id,
            SUM(s.shares - COALESCE(w.shares, 0))::int AS shares,
            SUM(s.amount - s.nominal_value * COALESCE(w.shares, 0)) AS subscribed,
            SUM(COALESCE(p.paid, 0) + s.opening_paid - COALESCE(w.paid, 0)) AS paid,
            BOOL_OR(s.payment_due_on < :date
              AND s.amount - COALESCE(p.paid, 0) - s.opening_paid - COALESCE(w.unpaid, 0) > 0) AS payment_overdue
       FROM share_subscriptions s
       LEFT JOIN LATERAL (SELECT SUM(amount) AS paid FROM share_payments WHERE subscription_id = s.id
         AND business_date <= :date) p ON true
       LEFT JOIN LATERAL (SELECT SUM(shares) AS shares, SUM(cancelled_paid) AS paid, SUM(cancelled_unpaid) AS unpaid
                            FROM share_withdrawals WHERE subscription_id = s.id AND effective_on <= :date) w ON true
      WHERE s.enterprise_id = :enterpriseId AND s.subscribed_on <= :date AND s.cancelled_at IS NULL
        AND (CAST(:clientId AS uuid) IS NULL OR s.client_id = :clientId)
      GROUP BY s.client_id, s.share_type_id`,
    { date, enterpriseId, clientId },
  );
}

export interface HoldingOfType {
  share_type: string;
  code: string;
  name: string;
  shares: number;
  subscribed: string;
  paid: string;
  unpaid: string;
  payment_overdue: boolean;
}

export interface RegisterLine {
  client: string;
  member_number: string;
  name: string;
  branch: string;
  votes: 0 | 1;
  shares: number;
  subscribed: string;
  paid: string;
  unpaid: string;
  types: HoldingOfType[];
}

interface MemberRow {
  client: string;
  member_number: string;
  name: string;
  branch: string;
  shares: number;
  subscribed: string;
  paid: string;
  holds_voting_shares: boolean;
  payment_overdue: boolean;
  types: HoldingOfType[];
}

/**
 * The members holding shares at `date`, one row each with their holding by type, by member number: a query
 * for the caller to page (it ends its ordering on the member's id). Rows become lines through `registerLine`.
 */
export function registerQuery(
  knex: Knex,
  enterpriseId: string,
  date: IsoDate,
  clientId: string | null = null,
): Knex.QueryBuilder {
  return knex
    .with('h', holdingsAt(knex, enterpriseId, date, clientId))
    .from('h')
    .join('client_profiles as c', 'c.id', 'h.client_id')
    .join('share_types as t', 't.id', 'h.share_type_id')
    .where('h.shares', '>', 0)
    .groupBy('c.id', 'c.enterprise_id') // the key: the other columns of c follow from it
    .orderBy([{ column: 'c.member_number' }, { column: 'c.id' }])
    .select(
      'c.id as client',
      'c.member_number',
      knex.raw(
        `CASE WHEN c.kind = 'legal_entity' THEN c.legal_name ELSE c.first_name || ' ' || c.last_name END AS name`,
      ),
      'c.branch_id as branch',
      knex.raw('SUM(h.shares)::int AS shares'),
      knex.raw('SUM(h.subscribed)::text AS subscribed'),
      knex.raw('SUM(h.paid)::text AS paid'),
      knex.raw('BOOL_OR(t.voting) AS holds_voting_shares'),
      knex.raw('BOOL_OR(h.payment_overdue) AS payment_overdue'),
      knex.raw(
        `json_agg(json_build_object('share_type', t.id, 'code', t.code, 'name', t.name, 'shares', h.shares,
          'subscribed', h.subscribed::text,
           'paid', h.paid::text, 'unpaid', (h.subscribed - h.paid)::text, 'payment_overdue', h.payment_overdue)
             ORDER BY t.code) AS types`,
      ),
    );
}

export function registerLine(row: MemberRow): RegisterLine {
  return {
    client: row.client,
    member_number: row.member_number,
    name: row.name,
    branch: row.branch,
    votes: votesOf({ holdsVotingShares: row.holds_voting_shares, paymentOverdue: row.payment_overdue }),
    shares: row.shares,
    subscribed: row.subscribed,
    paid: row.paid,
    unpaid: toFrancs(new Money(row.subscribed).minus(row.paid), Money.ROUND_HALF_UP),
    types: row.types,
  };
}

export interface RegisterTotals {
  members: number;
  votes: number;
  shares: number;
  subscribed: string;
  paid: string;
  unpaid: string;
  types: Omit<HoldingOfType, 'payment_overdue'>[];
}

/** The register's totals at `date`: by type, and the members and votes (counted by the one voting rule). */
export async function registerTotals(knex: Knex, enterpriseId: string, date: IsoDate): Promise<RegisterTotals> {
  const [byType, byVotingState] = await Promise.all([
    knex
      .with('h', holdingsAt(knex, enterpriseId, date, null))
      .from('h')
      .join('share_types as t', 't.id', 'h.share_type_id')
      .groupBy('t.id', 't.enterprise_id') // the key: the other columns of t follow from it
      .orderBy('t.code')
      .select(
        't.id as share_type',
        't.code',
        't.name',
        knex.raw('SUM(h.shares)::int AS shares'),
        knex.raw('SUM(h.subscribed)::text AS subscribed'),
        knex.raw('SUM(h.paid)::text AS paid'),
      ),
    knex
      .from(
        registerQuery(knex, enterpriseId, date)
          .clearSelect()
          .clearOrder()
          .select(
            knex.raw('BOOL_OR(t.voting) AS holds_voting_shares'),
            knex.raw('BOOL_OR(h.payment_overdue) AS payment_overdue'),
          )
          .as('m'),
      )
      .groupBy('holds_voting_shares', 'payment_overdue')
      .select('holds_voting_shares', 'payment_overdue', knex.raw('COUNT(*)::int AS members')),
  ]);
  const sum = (field: 'subscribed' | 'paid') =>
    byType.reduce((total: Money, row: Record<string, string>) => total.plus(row[field]!), new Money(0));
  return {
    members: byVotingState.reduce((total: number, row: { members: number }) => total + row.members, 0),
    votes: byVotingState.reduce(
      (total: number, row: { holds_voting_shares: boolean; payment_overdue: boolean; members: number }) => {
        return (
          total +
          votesOf({ holdsVotingShares: row.holds_voting_shares, paymentOverdue: row.payment_overdue }) * row.members
        );
      },
      0,
    ),
    shares: byType.reduce((total: number, row: { shares: number }) => total + row.shares, 0),
    subscribed: toFrancs(sum('subscribed'), Money.ROUND_HALF_UP),
    paid: toFrancs(sum('paid'), Money.ROUND_HALF_UP),
    unpaid: toFrancs(sum('subscribed').minus(sum('paid')), Money.ROUND_HALF_UP),
    types: byType.map(
      (row: { share_type: string; code: string; name: string; shares: number; subscribed: string; paid: string }) => ({
        ...row,
        unpaid: toFrancs(new Money(row.subscribed).minus(row.paid), Money.ROUND_HALF_UP),
      }),
    ),
  };
}

/** Shares in their notice period and refunds owed (effective, not yet paid), by share type, for a member. */
export async function pendingWithdrawals(
  knex: Knex,
  clientId: string,
): Promise<Map<string, { sharesInNotice: number; refundsOwed: Money }>> {
  const rows: { share_type_id: string; in_notice: number; owed: string }[] = await knex('share_withdrawals as w')
    .join('share_subscriptions as s', 's.id', 'w.subscription_id')
    .where('w.client_id', clientId)
    .whereIn('w.status', ['notice', 'effective'])
    .groupBy('s.share_type_id')
    .select(
      's.share_type_id',
      knex.raw(`COALESCE(SUM(w.shares) FILTER (WHERE w.status = 'notice'), 0)::int AS in_notice`),
      knex.raw(`COALESCE(SUM(w.cancelled_paid) FILTER (WHERE w.status = 'effective'), 0)::text AS owed`),
    );
  return new Map(
    rows.map((row) => [row.share_type_id, { sharesInNotice: row.in_notice, refundsOwed: new Money(row.owed) }]),
  );
}
