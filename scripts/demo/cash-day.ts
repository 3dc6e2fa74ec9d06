import type { Session } from './api-client';
import type { Cooperative } from './cooperative';
import type { Members } from './members';

/** What the cashiers' day leaves behind, for the summary and the test. */
export interface CashDayOutcome {
  date: string;
  tills: { teller: string; cashier: string };
  sessions: { teller: string; cashier: string };
  /** The cashier's count at the close fell short by this much: posted to 4631 (manquants). */
  shortage: string;
  endOfDay: { id: string; workflow_id: string; status: string; next_date: string | null };
}

interface Opened {
  id: string;
  account: string;
}

interface EndOfDayRun {
  id: string;
  workflow_id: string;
  status: string;
  next_date: string | null;
}

/** XAF notes and coins, largest first: a count is made the way a cashier makes change. */
const pieces = [
  ['note_10000', 10_000],
  ['note_5000', 5_000],
  ['note_2000', 2_000],
  ['note_1000', 1_000],
  ['note_500', 500],
  ['coin_100', 100],
  ['coin_50', 50],
  ['coin_25', 25],
  ['coin_10', 10],
  ['coin_5', 5],
  ['coin_2', 2],
  ['coin_1', 1],
] as const;

/** A count (billetage) that totals `amount` whole francs. */
function countOf(amount: number): Record<string, number> {
  const count: Record<string, number> = {};
  let left = amount;
  for (const [name, value] of pieces) {
    if (left >= value) count[name] = Math.floor(left / value);
    left %= value;
  }
  return count;
}

/**
 * One working day of the head office's two counters (docs/domain.md §13): the branch head gives each cashier a till,
 * each opens their session with an empty drawer, serves members, and closes by counting; the second cashier's
 * drawer is 1 000 XAF short, which the close posts to 4631, and which the branch head settles (recovered, under four
 * eyes). The vault is counted; then each branch closes its day and direction runs the end of day, which moves the
 * business date to the next working day.
 */
export async function runCashDay(
  cooperative: Cooperative,
  members: Members,
  today: string,
  log: (line: string) => void,
): Promise<CashDayOutcome> {
  const { teller, cashier, branchHead } = cooperative.staff;
  const head = cooperative.branchIds.akwa;
  const till = (code: string, label: string, user: string) =>
    branchHead.session.post<{ id: string }>(`open the till ${code}`, '/api/v1/cash/tills/', {
      enterprise: cooperative.enterpriseId,
      branch: head,
      code,
      label,
      cash_limit: '2000000',
      cashier: user,
    });
  const idOf = async (session: Session) => (await session.get<{ id: string }>('who am I', '/api/v1/auth/users/me/')).id;
  const tills = {
    teller: (await till('G1', 'Guichet 1', await idOf(teller.session))).id,
    cashier: (await till('G2', 'Guichet 2', await idOf(cashier.session))).id,
  };
  const open = (session: Session, who: string) =>
    session.post<Opened>(`${who} opens the till session`, '/api/v1/cash/till-sessions/', { count: {} });
  const sessions = {
    teller: await open(teller.session, 'the teller'),
    cashier: await open(cashier.session, 'the cashier'),
  };
  log(`${today}: two tills at Akwa (G1, G2), each session opened on an empty drawer`);

  await serveMembers(cooperative, members);

  const shortage = 1000;
  const close = (session: Session, id: string, who: string, counted: number) =>
    session.post<{ closing_entry: string | null }>(
      `${who} counts and closes the session`,
      `/api/v1/cash/till-sessions/${id}/close/`,
      { count: countOf(counted) },
    );
  await close(teller.session, sessions.teller.id, 'the teller', 150_000 + 85_000 + 40_000);
  const short = await close(cashier.session, sessions.cashier.id, 'the cashier', 300_000 - 120_000 - shortage);
  log(`${today}: sessions closed by count; the cashier's drawer is ${shortage} XAF short (4631)`);
  await settleShortage(cooperative, short.closing_entry!);
  await countVault(cooperative, head);
  log(`${today}: the shortage recovered from the cashier into the vault (approved by direction); the vault counted`);

  const endOfDay = await closeTheDay(cooperative, today);
  log(`${today}: end of day ${endOfDay.status}; the business date is now ${endOfDay.next_date ?? today}`);
  return {
    date: today,
    tills,
    sessions: { teller: sessions.teller.id, cashier: sessions.cashier.id },
    shortage: String(shortage),
    endOfDay,
  };
}

/** The teller serves three members; the cashier takes one deposit and pays one withdrawal. */
async function serveMembers(cooperative: Cooperative, members: Members): Promise<void> {
  const { teller, cashier } = cooperative.staff;
  const { mvondo, kamga, ewane, ngoBassa } = members;
  const deposit = (session: Session, accountId: string, amount: string, reference: string) =>
    session.post(
      `deposit ${amount} XAF (${reference})`,
      `/api/v1/members/accounts/${accountId}/deposits/`,
      { amount, reference },
      `${cooperative.code}:till-day:${reference}`,
    );
  await deposit(teller.session, mvondo.accountId, '150000', 'G1-1');
  await deposit(teller.session, kamga.accountId, '85000', 'G1-2');
  await deposit(teller.session, ewane.accountId, '40000', 'G1-3');
  await deposit(cashier.session, ngoBassa.accountId, '300000', 'G2-1');
  await cashier.session.post(
    'withdraw 120000 XAF (G2-2)',
    `/api/v1/members/accounts/${ngoBassa.accountId}/withdrawals/`,
    { amount: '120000', reference: 'G2-2' },
    `${cooperative.code}:till-day:G2-2`,
  );
}

/** Each branch closes its day, then direction runs the end of day and waits for it to finish. */
async function closeTheDay(cooperative: Cooperative, today: string): Promise<EndOfDayRun> {
  const { branchHead, direction } = cooperative.staff;
  const head = cooperative.branchIds.akwa;
  await branchHead.session.post('close the day of Akwa', '/api/v1/cash/branch-days/', {
    enterprise: cooperative.enterpriseId,
    branch: head,
    date: today,
  });
  await direction.session.post('close the day of Bonabéri', '/api/v1/cash/branch-days/', {
    enterprise: cooperative.enterpriseId,
    branch: cooperative.branchIds.bonaberi,
    date: today,
  });
  const started = await direction.session.post<EndOfDayRun>('run the end of day', '/api/v1/enterprise/end-of-days/', {
    enterprise: cooperative.enterpriseId,
  });
  return finished(direction.session, started.id);
}

/**
 * The branch head settles the shortage as recovered (the cashier hands it in to the vault), under four eyes: direction
 * approves.
 */
async function settleShortage(cooperative: Cooperative, differenceEntry: string): Promise<void> {
  const { branchHead, direction } = cooperative.staff;
  const request = await branchHead.session.post<{ id: string }>(
    'settle the shortage as recovered from the cashier',
    '/api/v1/cash/difference-settlements/',
    {
      enterprise: cooperative.enterpriseId,
      difference_entry: differenceEntry,
      mode: 'recovered',
    },
  );
  await direction.session.post('approve the settlement', `/api/v1/approvals/requests/${request.id}/approve/`, {
    reason: 'Manquant remboursé par le caissier',
  });
}

/** The branch head counts the vault: exactly its book balance, read from the vault's detail. */
async function countVault(cooperative: Cooperative, branch: string): Promise<void> {
  const { branchHead } = cooperative.staff;
  const vaults = await branchHead.session.get<{ results: { balance: string }[] }>(
    "read the vault's book balance",
    '/api/v1/cash/tills/',
    { enterprise: cooperative.enterpriseId, branch, kind: 'vault' },
  );
  const balance = Number(vaults.results[0]!.balance);
  await branchHead.session.post('count the vault', '/api/v1/cash/vault-counts/', {
    enterprise: cooperative.enterpriseId,
    branch,
    count: countOf(balance),
  });
}

/** The end of day's run once it has ended (its workflow runs the day's jobs: seconds). */
async function finished(direction: Session, id: string): Promise<EndOfDayRun> {
  for (let attempt = 0; attempt < 600; attempt += 1) {
    const run = await direction.get<EndOfDayRun>('follow the end of day', `/api/v1/enterprise/end-of-days/${id}/`);
    if (run.status !== 'running') return run;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the end of day ${id} did not end within two minutes`);
}
