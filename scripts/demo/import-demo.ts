import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { DemoStepFailed, type CoopbankApi, type Page, type Session } from './api-client';
import { createCooperative } from './cooperative';
import { ProgressFile } from './progress';

/** What the go-live import leaves behind, for the summary and the test. */
export interface ImportDemoOutcome {
  import: string;
  enterprise: string;
  status: string;
  reconciled: boolean;
  /** Rows applied per kind of file. */
  rows: Record<string, number>;
  /** The first line of an imported account's statement: its balance at the cut-over. */
  opening: {
    account: string;
    accountId: string;
    kind: string;
    entry_date: string;
    amount: string;
    description: string;
  };
  /** The imported cashier, invited by the administrator, who set their password and signed in. */
  invited: { id: string; username: string; password: string; signedIn: boolean };
}

interface ImportRead {
  id: string;
  status: string;
  problems: number;
  reconciliation: { reconciled: boolean } | null;
}

// The kinds in the order they are uploaded: branches and users first, members before the accounts and loans that name
// them, the trial balance last.
const kinds = ['branches-users', 'members', 'member-accounts', 'loans', 'loan-installments', 'trial-balance'] as const;
const filesDir = path.join(__dirname, 'import-files');

/**
 * The go-live import (issue 31, docs/domain.md §15.1): a second, empty cooperative `<code>I` takes in a small
 * cooperative kept until now in spreadsheets — its members, their accounts, two loans in progress with their
 * installments and the trial balance at the cut-over (scripts/demo/import-files/). Direction uploads and asks for
 * apply; the administrator approves (four eyes); the import's workflow applies, posts the opening entries and
 * reconciles. A second enterprise keeps the demo cooperative's own counts as they are.
 */
export async function importCooperative(
  api: CoopbankApi,
  platformAdmin: Session,
  where: { code: string; dataDir: string },
  log: (line: string) => void,
) {
  const code = `${where.code}I`;
  const progress = ProgressFile.of(where.dataDir, code);
  const cooperative = await createCooperative(api, platformAdmin, code, progress);
  const direction = cooperative.staff.direction.session;
  const enterprise = cooperative.enterpriseId;
  const earlier = await direction.get<Page<ImportRead>>('look for an earlier import', '/api/v1/imports/', {
    enterprise,
    status: 'applied',
  });
  const imported =
    earlier.results[0] ?? (await applyFiles(direction, cooperative.staff.admin.session, enterprise, code));
  const rows: Record<string, number> = {};
  for (const kind of kinds)
    rows[kind] =
      fs
        .readFileSync(path.join(filesDir, `${kind}.csv`), 'utf8')
        .trim()
        .split('\n').length - 1;
  log(
    `${code}: a cooperative moved in from files (${rows.members} members, ${rows['member-accounts']} accounts, ` +
      `${rows.loans} loans), its import ${imported.status}, reconciled`,
  );
  const opening = await openingLine(direction, enterprise, importedAccount);
  log(
    `${code}: account ${opening.account}'s statement starts with "${opening.description}", ${opening.amount} XAF ` +
      `on ${opening.entry_date}`,
  );
  const invited = await inviteImportedUser(
    api,
    cooperative.staff.admin.session,
    usernameIn(code, importedCashier),
    progress,
  );
  log(
    `${code}: the imported cashier ${invited.username} was invited by the administrator, set a password and signed in`,
  );
  return {
    import: imported.id,
    enterprise,
    status: imported.status,
    reconciled: imported.reconciliation?.reconciled === true,
    rows,
    opening,
    invited,
  };
}

// From the files: an account of the accounts file, and the cashier of the branches-users file.
const importedAccount = 'IC-001';
const importedCashier = 'caisse-reprise';

/**
 * A username of the branches-users file as the cooperative's: prefixed with its code as its staff's are (a username is
 * the platform's).
 */
const usernameIn = (code: string, username: string) => `${code.toLowerCase()}.${username}`;

/** A file's text as uploaded: the branches-users file's usernames made the cooperative's. */
function fileText(kind: string, code: string): string {
  const text = fs.readFileSync(path.join(filesDir, `${kind}.csv`), 'utf8');
  if (kind !== 'branches-users') return text;
  return text
    .split('\n')
    .map((line, index) => {
      const cells = line.split(';');
      if (index === 0 || (cells[2] ?? '') === '') return line;
      cells[2] = usernameIn(code, cells[2]!);
      return cells.join(';');
    })
    .join('\n');
}

/** The first line of the imported account's statement: its balance at the cut-over (docs/domain.md §15.1). */
async function openingLine(direction: Session, enterprise: string, number: string) {
  const accounts = await direction.get<Page<{ id: string; number: string }>>(
    'find an imported account',
    '/api/v1/members/accounts/',
    { enterprise, page_size: 100 },
  );
  const account = accounts.results.find((one) => one.number === number)!;
  const statement = await direction.get<
    Page<{ kind: string; entry_date: string; amount: string; description: string }>
  >('read its statement', `/api/v1/members/accounts/${account.id}/statement/`);
  const { kind, entry_date: entryDate, amount, description } = statement.results[0]!;
  return { account: number, accountId: account.id, kind, entry_date: entryDate, amount, description };
}

/**
 * The imported cashier comes in (docs/domain.md §15.3): the administrator asks for an invitation, the cashier sets
 * their password with its token and signs in. The password is kept with the staff's (the progress file) before it
 * is set: a resumed demo signs in with it, or invites again if the run stopped before it was set.
 */
async function inviteImportedUser(api: CoopbankApi, administrator: Session, username: string, progress: ProgressFile) {
  const users = await administrator.get<Page<{ id: string; username: string }>>(
    'find the imported cashier',
    '/api/v1/auth/users/',
    { search: username },
  );
  const user = users.results.find((one) => one.username === username)!;
  const password = progress.progress.passwords[username] ?? randomBytes(12).toString('base64url');
  progress.update((state) => {
    state.passwords[username] = password;
  });
  const signedIn = await api.signIn(username, password).catch((error: unknown) => {
    if (error instanceof DemoStepFailed && error.status === 401) return null;
    throw error;
  });
  if (signedIn === null) {
    const invitation = await administrator.post<{ token: string }>(
      'invite the imported cashier',
      `/api/v1/auth/users/${user.id}/invitation/`,
      {},
    );
    await api.call('the imported cashier sets their password', 'POST', '/api/v1/auth/invitations/accept/', {
      json: { token: invitation.token, password },
    });
  }
  const session = signedIn ?? (await api.signIn(username, password));
  return { id: user.id, username: session.username, password, signedIn: true };
}

/** Creates the import, uploads the files, validates, and has apply asked by the uploader and approved by another. */
async function applyFiles(
  direction: Session,
  administrator: Session,
  enterprise: string,
  code: string,
): Promise<ImportRead> {
  const created = await direction.post<{ id: string }>('create the go-live import', '/api/v1/imports/', {
    enterprise,
    cut_over_date: '2026-10-31',
  });
  const base = `/api/v1/imports/${created.id}`;
  for (const kind of kinds)
    await direction.putCsv(`upload the ${kind} file`, `${base}/files/${kind}/`, fileText(kind, code));
  await direction.post("ask for the import's validation", `${base}/validation/`, {});
  const validated = await importPast(direction, base, ['validating']);
  if (validated.status !== 'validated')
    throw new Error(
      `the demo's import files were not validated: ${validated.status}, ${validated.problems} problems (GET ` +
        `${base}/report/)`,
    );
  const request = await direction.post<{ id: string }>('ask to apply the import', `${base}/application/`, {});
  await administrator.post('approve applying the import', `/api/v1/approvals/requests/${request.id}/approve/`, {
    reason: 'Fichiers contrôlés, balance rapprochée',
  });
  // The approval wakes the import's workflow, which applies at once.
  return importPast(direction, base, ['validated', 'applying']);
}

/** The import read once its workflow has moved it past `passing` (it validates, then applies, in the background). */
async function importPast(direction: Session, base: string, passing: readonly string[]): Promise<ImportRead> {
  for (let waited = 0; waited < 600; waited += 1) {
    const read = await direction.get<ImportRead>('read the import', `${base}/`);
    if (!passing.includes(read.status)) return read;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the import at ${base} was still ${passing.join(' or ')} after 5 minutes`);
}
