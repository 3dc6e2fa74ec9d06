import type { Session } from './api-client';
import { displayName, members, type MemberKey, type MemberPlan } from './cast';
import type { Cooperative } from './cooperative';
import type { ProgressFile } from './progress';

export interface Member {
  key: MemberKey;
  id: string;
  name: string;
  /** The teller of the member's branch: only a teller of that branch moves the member's money. */
  teller: Session;
  /** The current account (compte courant sociétaire). */
  accountId: string;
}

export type Members = Record<MemberKey, Member>;

/**
 * Admission at the counter of the member's branch: the profile, the founders named by direction, a current
 * account opened with its first deposit, and a blocked savings book for some. Profiles one after the other,
 * so that member numbers follow the cast; the accounts side by side.
 */
export async function admitMembers(cooperative: Cooperative, progress: ProgressFile): Promise<Members> {
  const registered: Omit<Member, 'accountId'>[] = [];
  for (const key of Object.keys(members) as MemberKey[]) {
    // Registered by an earlier run: its accounts were opened under keys, which answer them again.
    const earlier = progress.progress.members[key];
    const member =
      earlier === undefined
        ? await registerMember(cooperative, key)
        : { key, id: earlier, name: displayName(members[key]), teller: tellerOf(cooperative, members[key]) };
    progress.update((state) => {
      state.members[key] = member.id;
    });
    registered.push(member);
  }
  const admitted = await Promise.all(
    registered.map(async (member) => ({ ...member, accountId: await openAccounts(cooperative, member, progress) })),
  );
  return Object.fromEntries(admitted.map((member) => [member.key, member])) as Members;
}

async function registerMember(cooperative: Cooperative, key: MemberKey): Promise<Omit<Member, 'accountId'>> {
  const plan: MemberPlan = members[key];
  const teller = tellerOf(cooperative, plan);
  const name = displayName(plan);
  const profile = await teller.post<{ id: string }>(
    `register the member ${name}`,
    '/api/v1/members/clients/',
    profileOf(cooperative, plan),
  );
  if (plan.founder === true) {
    await cooperative.staff.direction.session.post(
      `name ${name} among the founders`,
      `/api/v1/members/clients/${profile.id}/founder/`,
      { founder: true, reason: 'Initiateur nommé dans les statuts' },
    );
  }
  return { key, id: profile.id, name, teller };
}

/** Opens the member's accounts (those an earlier run did not); answers the current account's id. */
async function openAccounts(
  cooperative: Cooperative,
  member: Omit<Member, 'accountId'>,
  progress: ProgressFile,
): Promise<string> {
  const plan: MemberPlan = members[member.key];
  const open = async (product: string, deposit: string, what: string): Promise<string> => {
    const name = `${what.replace(/ /g, '-')}:${member.key}`;
    const earlier = progress.progress.accounts[name];
    if (earlier !== undefined) return earlier;
    const opened = await member.teller.post<{ id: string }>(
      `open the ${what} of ${member.name}`,
      '/api/v1/members/accounts/',
      { client: member.id, product, initial_deposit: deposit },
      `${cooperative.code}:open:${name}`,
    );
    progress.update((state) => {
      state.accounts[name] = opened.id;
    });
    return opened.id;
  };
  const account = await open(cooperative.products.currentAccount, plan.deposit, 'current account');
  if (plan.savingsBook !== undefined) await open(cooperative.products.savingsBook, plan.savingsBook, 'savings book');
  return account;
}

const tellerOf = (cooperative: Cooperative, plan: MemberPlan): Session =>
  plan.branch === 'akwa' ? cooperative.staff.teller.session : cooperative.staff.bonaberiTeller.session;

function profileOf(cooperative: Cooperative, plan: MemberPlan): Record<string, unknown> {
  const common = {
    enterprise: cooperative.enterpriseId,
    branch: cooperative.branchIds[plan.branch],
    kind: plan.kind,
    id_document_number: plan.idDocument,
    phone: plan.phone,
    city: 'Douala',
    occupation: plan.occupation,
  };
  if (plan.kind === 'legal_entity')
    return { ...common, legal_name: plan.legalName, id_document_type: 'business_register' };
  return {
    ...common,
    first_name: plan.firstName,
    last_name: plan.lastName,
    gender: plan.gender,
    birth_date: plan.birthDate,
    id_document_type: 'national_id',
  };
}

/** A cash operation at the counter: what the demo says, the account's route under it, and its key's purpose. */
const counterOperations = {
  deposit: { verb: 'deposit', route: 'deposits' },
  withdrawal: { verb: 'withdraw', route: 'withdrawals' },
} as const;

type CounterArguments = [cooperative: Cooperative, member: Member, amount: string, date: string, reference: string];

/** Cash at the counter, keyed by member, purpose and date so that a retried request moves nothing twice. */
async function atTheCounter(
  operation: keyof typeof counterOperations,
  ...[cooperative, member, amount, date, reference]: CounterArguments
): Promise<void> {
  const { verb, route } = counterOperations[operation];
  await member.teller.post(
    `${verb} ${amount} XAF for ${member.name}`,
    `/api/v1/members/accounts/${member.accountId}/${route}/`,
    { amount, reference },
    `${cooperative.code}:${operation}:${member.key}:${date}`,
  );
}

export const cashDeposit = (...counter: CounterArguments) => atTheCounter('deposit', ...counter);

export const cashWithdrawal = (...counter: CounterArguments) => atTheCounter('withdrawal', ...counter);
