import type { Page } from './api-client';
import { members as cast, type MemberKey, type MemberPlan } from './cast';
import type { Cooperative } from './cooperative';
import type { Member, Members } from './members';

/** Founder shares: 100 of 100 000 XAF each, a quarter paid at subscription (AUSCOOP Art. 270 and 384). */
const founderShares = 100;
const founderNominal = 100_000;
const founderQuarter = String((founderShares * founderNominal) / 4);

export interface ShareCapital {
  /** Subscription of each member, by member. */
  subscriptions: Partial<Record<MemberKey, string>>;
}

/**
 * Direction creates the founder (001) and ordinary (002) share types; every member subscribes at admission:
 * ordinary shares paid in full, founder shares paid a quarter now and the rest over the type's period.
 */
export async function subscribeCapital(cooperative: Cooperative, members: Members): Promise<ShareCapital> {
  const direction = cooperative.staff.direction.session;
  const existing = await direction.get<Page<{ id: string; code: string }>>(
    'look for the share types',
    '/api/v1/shares/types/',
    { enterprise: cooperative.enterpriseId },
  );
  const createType = async (fields: Record<string, unknown>) =>
    existing.results.find((type) => type.code === fields.code) ??
    direction.post<{ id: string }>(`create the share type ${String(fields.code)}`, '/api/v1/shares/types/', {
      enterprise: cooperative.enterpriseId,
      ...fields,
    });
  const founderType = await createType({
    code: '001',
    name: 'Parts de fondateur',
    nominal_value: String(founderNominal),
  });
  const ordinaryType = await createType({
    code: '002',
    name: 'Parts ordinaires',
    nominal_value: '10000',
    max_shares: 500,
  });
  const subscribed = await Promise.all(
    Object.values(members).map(async (member) => {
      const plan: MemberPlan = cast[member.key];
      const fields =
        plan.founder === true
          ? {
              share_type: founderType.id,
              shares: founderShares,
              initial_payment: founderQuarter,
            }
          : { share_type: ordinaryType.id, shares: plan.ordinaryShares };
      const subscription = await member.teller.post<{ id: string }>(
        `subscribe shares for ${member.name}`,
        '/api/v1/shares/subscriptions/',
        { client: member.id, ...fields },
        `${cooperative.code}:subscription:${member.key}`,
      );
      return [member.key, subscription.id] as const;
    }),
  );
  return { subscriptions: Object.fromEntries(subscribed) };
}

/** A second quarter of a founder's shares paid up (libération), from the member's account or in cash. */
export async function payFounderQuarter(
  cooperative: Cooperative,
  capital: ShareCapital,
  member: Member,
  channel: 'cash' | 'account',
): Promise<void> {
  await member.teller.post(
    `pay up founder shares of ${member.name}`,
    '/api/v1/shares/payments/',
    {
      subscription: capital.subscriptions[member.key],
      amount: founderQuarter,
      channel,
      ...(channel === 'account' ? { account: member.accountId } : {}),
      reference: 'Libération, deuxième quart',
    },
    `${cooperative.code}:share-payment:${member.key}`,
  );
}

/** A member's written notice to withdraw part of their ordinary shares: its workflow waits out the notice. */
export async function requestShareWithdrawal(
  capital: ShareCapital,
  member: Member,
  shares: number,
): Promise<{ id: string; workflow_id: string }> {
  return member.teller.post(`record the share withdrawal notice of ${member.name}`, '/api/v1/shares/withdrawals/', {
    subscription: capital.subscriptions[member.key],
    shares,
    reason: 'Financement de la rentrée scolaire',
  });
}
