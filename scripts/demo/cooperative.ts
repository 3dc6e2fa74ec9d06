import { randomBytes } from 'node:crypto';
import type { CoopbankApi, Page, Session } from './api-client';
import { branches, staff, type BranchKey, type StaffKey, type StaffMember } from './cast';
import type { ProgressFile } from './progress';

export interface StaffAccount {
  username: string;
  password: string;
  role: StaffMember['role'];
  scope: string;
  duty: string;
  session: Session;
}

export interface Cooperative {
  enterpriseId: string;
  code: string;
  name: string;
  branchIds: Record<BranchKey, string>;
  staff: Record<StaffKey, StaffAccount>;
  products: {
    currentAccount: string;
    savingsBook: string;
    termDeposit: string;
    shortTermCredit: string;
    equipmentCredit: string;
  };
}

/**
 * The cooperative as a platform administrator and its own people would set it up: the enterprise (head office,
 * accounting year, chart and rules come with it), a second branch, the cooperative's administrator, who creates
 * the accounts of its staff with their roles, then direction's configuration and products. Each part is found
 * if an earlier, interrupted run made it (`progress`), and made otherwise.
 */
export async function createCooperative(
  api: CoopbankApi,
  platformAdmin: Session,
  code: string,
  progress: ProgressFile,
): Promise<Cooperative> {
  const name = `COOPEC du Littoral (démo ${code})`;
  const enterpriseId =
    progress.progress.enterpriseId ??
    (
      await platformAdmin.post<{ id: string }>('create the enterprise', '/api/v1/enterprise/enterprises/', {
        code,
        name,
        legal_form: 'Coopérative avec conseil d’administration',
        country: 'CM',
        time_zone: 'Africa/Douala',
        head_office: branches.akwa,
      })
    ).id;
  progress.update((state) => {
    state.enterpriseId = enterpriseId;
  });
  const offices = await platformAdmin.get<Page<{ id: string; code: string }>>(
    'read the branches',
    '/api/v1/enterprise/branches/',
    { enterprise: enterpriseId },
  );
  const branchOf = (key: BranchKey) => offices.results.find((office) => office.code === branches[key].code)?.id;
  const bonaberi =
    branchOf('bonaberi') ??
    (
      await platformAdmin.post<{ id: string }>('open the Bonabéri branch', '/api/v1/enterprise/branches/', {
        enterprise: enterpriseId,
        ...branches.bonaberi,
        phone: '+237 233 39 00 00',
      })
    ).id;
  const branchIds: Record<BranchKey, string> = { akwa: branchOf('akwa')!, bonaberi };

  // The platform administrator appoints the cooperative's administrator, who creates everyone else's account.
  const where = { code, enterpriseId, branchIds, progress, approver: platformAdmin };
  const admin = await enrollStaff(api, platformAdmin, staff.admin, where);
  // Side by side: each invitation accepted and sign-in hashes a password with scrypt, the bulk of the demo's time.
  const others = (Object.keys(staff) as StaffKey[]).filter((key) => key !== 'admin');
  const enrolled = await Promise.all(
    others.map(async (key) => [key, await enrollStaff(api, admin.session, staff[key], where)] as const),
  );
  const accounts = { admin, ...Object.fromEntries(enrolled) } as Record<StaffKey, StaffAccount>;
  const direction = accounts.direction.session;
  await direction.patch('configure the cooperative', `/api/v1/enterprise/enterprises/${enterpriseId}/configuration/`, {
    // A month to decide each step: the applications the demo leaves in review stay there while one explores.
    approval_step_time_limit_days: 30,
  });
  return {
    enterpriseId,
    code,
    name,
    branchIds,
    staff: accounts,
    products: await createProducts(direction, enterpriseId),
  };
}

/**
 * An administrator creates the staff member's account with their role (`POST /api/v1/auth/users/`); the
 * member sets their password with the invitation, then signs in. A member an earlier run enrolled signs in.
 */
async function enrollStaff(
  api: CoopbankApi,
  createdBy: Session,
  member: StaffMember,
  where: {
    code: string;
    enterpriseId: string;
    branchIds: Record<BranchKey, string>;
    progress: ProgressFile;
    approver: Session;
  },
): Promise<StaffAccount> {
  const username = `${where.code.toLowerCase()}.${member.login}`;
  const scope = member.branch === null ? 'whole cooperative' : branches[member.branch].name;
  const known = where.progress.progress.passwords[username];
  // Printed at the end: the only place it appears, as with npm start's initial administrator.
  const password = known ?? randomBytes(12).toString('base64url');
  const existing = await createdBy.get<Page<{ username: string }>>(`look for ${username}`, '/api/v1/auth/users/', {
    search: username,
  });
  if (!existing.results.some((user) => user.username === username)) {
    where.progress.update((state) => {
      state.passwords[username] = password;
    });
    const branch = member.branch === null ? null : where.branchIds[member.branch];
    const user = await createdBy.post<{ invitation: { token: string }; pending_roles: { id: string }[] }>(
      `create the account of ${username} (${member.role})`,
      '/api/v1/auth/users/',
      {
        username,
        full_name: member.fullName,
        email: `${username}@demo.coopbank.example`,
        roles: [{ role: member.role, enterprise: where.enterpriseId, branch }],
      },
    );
    // A role above the till is the second administrator's to approve: here the platform administrator's.
    for (const request of user.pending_roles) {
      await where.approver.post(
        `approve the ${member.role} role of ${username}`,
        `/api/v1/approvals/requests/${request.id}/approve/`,
        { reason: 'Nomination du conseil' },
      );
    }
    await api.call(`${username} sets their password`, 'POST', '/api/v1/auth/invitations/accept/', {
      json: { token: user.invitation.token, password },
    });
  }
  return {
    username,
    password,
    role: member.role,
    scope,
    duty: member.duty,
    session: await api.signIn(username, password),
  };
}

async function createProducts(direction: Session, enterprise: string): Promise<Cooperative['products']> {
  const savings = await createSavingsProducts(direction, enterprise);
  const credits = await createLoanProducts(direction, enterprise);
  return { ...savings, ...credits };
}

/** The product of this code if the enterprise has it already, else a new one. */
async function findOrCreateProduct(
  direction: Session,
  enterprise: string,
  what: string,
  path: string,
  fields: Record<string, unknown>,
): Promise<{ id: string }> {
  const found = await direction.get<Page<{ id: string; code: string }>>(
    `look for the ${what} ${String(fields.code)}`,
    path,
    { enterprise, page_size: 100 },
  );
  return (
    found.results.find((product) => product.code === fields.code) ??
    direction.post<{ id: string }>(`create the ${what} ${String(fields.code)}`, path, { enterprise, ...fields })
  );
}

/** The current account, the blocked savings book and the term deposit. */
async function createSavingsProducts(direction: Session, enterprise: string) {
  const savings = (fields: Record<string, unknown>) =>
    findOrCreateProduct(direction, enterprise, 'savings product', '/api/v1/members/products/', fields);
  const currentAccount = await savings({
    code: 'CCS',
    name: 'Compte courant sociétaire',
    kind: 'demand_deposit',
    minimum_opening_balance: '5000',
    deposit_account_code: '3711',
  });
  const savingsBook = await savings({
    code: 'LIV',
    name: "Livret d'épargne bloquée",
    kind: 'blocked_savings',
    minimum_opening_balance: '25000',
    withdrawals_allowed: false,
    interest_rate: '0.035',
    deposit_account_code: '373',
  });
  // A 12-month term deposit renewed at maturity, its interest paid out; closed early, it earns 2 % instead of 5.5 %.
  const termDeposit = await savings({
    code: 'DAT',
    name: 'Dépôt à terme 12 mois',
    kind: 'term_deposit',
    term_months: 12,
    interest_rate: '0.055',
    deposit_account_code: '36100',
    maturity_instruction: 'renew',
    early_closure_rate: '0.02',
  });
  return { currentAccount: currentAccount.id, savingsBook: savingsBook.id, termDeposit: termDeposit.id };
}

/** The short-term credit and the equipment credit. */
async function createLoanProducts(direction: Session, enterprise: string) {
  const credit = (fields: Record<string, unknown>) =>
    findOrCreateProduct(direction, enterprise, 'loan product', '/api/v1/loans/products/', fields);
  const shortTermCredit = await credit({
    code: 'CRT',
    name: 'Crédit de trésorerie',
    term_category: 'cta',
    method: 'constant_annuity',
    annual_rate: '0.18',
    min_amount: '50000',
    max_amount: '5000000',
    min_term_periods: 3,
    max_term_periods: 24,
    max_grace_periods: 2,
    fee_rate: '0.01',
    penalty_rate: '0.12',
  });
  const equipmentCredit = await credit({
    code: 'EQP',
    name: "Crédit d'équipement",
    term_category: 'mlt',
    method: 'constant_principal',
    annual_rate: '0.15',
    min_amount: '500000',
    max_amount: '20000000',
    min_term_periods: 25,
    max_term_periods: 60,
    max_grace_periods: 6,
    fee_rate: '0.015',
    penalty_rate: '0.12',
  });
  return { shortTermCredit: shortTermCredit.id, equipmentCredit: equipmentCredit.id };
}
