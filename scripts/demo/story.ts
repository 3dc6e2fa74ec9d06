import { keepTheBooks, type BooksOutcome } from './books';
import { addDays, type BusinessCalendar } from './business-calendar';
import type { Cooperative } from './cooperative';
import { LoanDesk, loanOf, type LoanApplication } from './loans';
import { cashDeposit, cashWithdrawal, type Member, type Members } from './members';
import { runProvisioning, type ProvisioningRun } from './provisioning';
import { payFounderQuarter, requestShareWithdrawal, type ShareCapital } from './shares';

/** What the story leaves behind, for the summary and the test. */
export interface StoryOutcome {
  loans: { repaidPartly: string; overdue: string; doubtful: string; disbursed: string; approved: string };
  applications: { submitted: LoanApplication; midApproval: LoanApplication; refused: LoanApplication };
  withdrawal: { id: string; workflow_id: string };
  provisioningRun: ProvisioningRun;
  termDeposit: string;
  pledge: string;
  books: BooksOutcome;
}

/** Days after the third due date when the story stops: the missed third installment is then 20 days late. */
const daysAfterThirdDueDate = 20;

/**
 * Four months of the cooperative's life, each step at its business date. Three loans are paid out on the
 * first day; then, at each due date, one borrower pays on time, one pays twice and stops, one never pays,
 * while members save and the founders pay up their shares. On the last day new applications reach every
 * stage of the circuit, a member gives notice of a share withdrawal, and direction runs the provisioning:
 * one loan performing, one overdue (up to 45 days), one doubtful (beyond), each classified by the run.
 */
export async function tellTheStory(
  cooperative: Cooperative,
  members: Members,
  capital: ShareCapital,
  calendar: BusinessCalendar,
  log: (line: string) => void,
): Promise<StoryOutcome> {
  const desk = new LoanDesk(cooperative);
  log(
    `${calendar.today}: the accountant's books: the opening balance sheet, salaries, two suppliers, a motorcycle ` +
      `(each approved by direction)`,
  );
  const books = await keepTheBooks(cooperative, calendar.today);
  log(`${calendar.today}: three loans granted through the four-step circuit and paid out`);
  const { termDeposit, ...firstLoans } = await payOutFirstLoans(cooperative, desk, members, calendar.today);

  const dueDates = (await desk.dueDates(firstLoans.repaidPartly)).slice(0, 3);
  for (const [month, dueDate] of dueDates.entries()) {
    await calendar.moveTo(dueDate);
    log(`${dueDate}: due date ${month + 1}, repayments and savings`);
    await Promise.all(dueDateOperations(cooperative, desk, members, capital, firstLoans, month, dueDate));
  }

  await calendar.moveTo(addDays(dueDates[2]!, daysAfterThirdDueDate));
  log(`${calendar.today}: applications at every stage, a share withdrawal in notice, the provisioning run`);
  const { kamga } = members;
  const [disbursed, approved, refused, midApproval, submitted, withdrawal] = await applicationsAtEveryStage(
    desk,
    members,
    capital,
  );
  const pledge = await pledgeDeposit(cooperative, disbursed, kamga, '100000', calendar.today);
  // Last: the run classifies and provisions every loan as the story leaves it.
  const provisioningRun = await runProvisioning(cooperative.staff.direction.session, cooperative.enterpriseId);
  const { repaidPartly, overdue, doubtful } = firstLoans;
  return {
    loans: { repaidPartly, overdue, doubtful, disbursed, approved },
    applications: { submitted, midApproval, refused },
    withdrawal,
    provisioningRun,
    termDeposit,
    pledge,
    books,
  };
}

/** The loans of the first day, for the due dates that follow. */
interface FirstLoans {
  repaidPartly: string;
  overdue: string;
  doubtful: string;
}

/** The first day: three loans granted and paid out, the first borrower's machines bought, a term deposit opened. */
async function payOutFirstLoans(
  cooperative: Cooperative,
  desk: LoanDesk,
  members: Members,
  today: string,
): Promise<FirstLoans & { termDeposit: string }> {
  const { bello, moussa, eyenga, mvondo } = members;
  // Operations of different members are independent: side by side, as at several counters.
  const [repaidPartly, overdue, doubtful] = await Promise.all([
    desk.grant(bello, {
      product: 'shortTermCredit',
      amount: '900000',
      termPeriods: 12,
      purpose: 'Deux machines à coudre',
    }),
    desk.grant(moussa, {
      product: 'shortTermCredit',
      amount: '600000',
      termPeriods: 10,
      purpose: 'Stock de pièces détachées',
    }),
    desk.grant(eyenga, {
      product: 'shortTermCredit',
      amount: '500000',
      termPeriods: 12,
      purpose: 'Équipement de cuisine',
    }),
  ]);
  await Promise.all([
    desk.disburse(repaidPartly, bello),
    desk.disburse(overdue, moussa),
    desk.disburse(doubtful, eyenga),
  ]);
  await cashWithdrawal(cooperative, bello, '500000', today, 'Achat des machines');
  const termDeposit = await openTermDeposit(cooperative, mvondo, '1000000');
  return { repaidPartly, overdue, doubtful, termDeposit };
}

/**
 * The operations of one due date (month 0, 1 or 2): the first borrower pays, the second pays the first two only;
 * members save, the founders pay up their shares in month 1, a member withdraws in month 2. They start at once.
 */
function dueDateOperations(
  cooperative: Cooperative,
  desk: LoanDesk,
  members: Members,
  capital: ShareCapital,
  { repaidPartly, overdue }: FirstLoans,
  month: number,
  dueDate: string,
): Promise<unknown>[] {
  const { bello, moussa, mvondo, din, ewane, ndjock, ngoBassa, tchinda, atangana } = members;
  const operations = [
    desk.collectDue(repaidPartly, bello, dueDate, 'account'),
    cashDeposit(cooperative, mvondo, '50000', dueDate, 'Épargne sur salaire'),
    cashDeposit(cooperative, din, '30000', dueDate, 'Recette du marché'),
    cashDeposit(cooperative, ewane, '25000', dueDate, 'Épargne mensuelle'),
  ];
  if (month < 2) operations.push(desk.collectDue(overdue, moussa, dueDate, 'cash'));
  if (month === 1) {
    operations.push(
      payFounderQuarter(cooperative, capital, ngoBassa, 'account'),
      payFounderQuarter(cooperative, capital, tchinda, 'cash'),
      payFounderQuarter(cooperative, capital, atangana, 'cash'),
    );
  }
  if (month === 2) operations.push(cashWithdrawal(cooperative, ndjock, '20000', dueDate, 'Réparation de la pirogue'));
  return operations;
}

/** The last day's applications, one at each stage of the circuit, and a member's notice of a share withdrawal. */
function applicationsAtEveryStage(desk: LoanDesk, members: Members, capital: ShareCapital) {
  const { kamga, manga, fokou, nguema, essomba, ewane } = members;
  return Promise.all([
    grantedAfterSendBack(desk, kamga),
    desk.grant(manga, {
      product: 'shortTermCredit',
      amount: '750000',
      termPeriods: 12,
      purpose: 'Semences et intrants',
    }),
    refusedByBranchHead(desk, fokou),
    desk
      .submit(nguema, {
        product: 'equipmentCredit',
        amount: '1500000',
        termPeriods: 36,
        purpose: 'Ouverture d’un second salon',
      })
      .then((application) => desk.approveThrough(application, 'branch_head')),
    desk.submit(essomba, {
      product: 'shortTermCredit',
      amount: '400000',
      termPeriods: 6,
      purpose: 'Réparation de la moto',
    }),
    requestShareWithdrawal(capital, ewane, 10),
  ]);
}

/** A term deposit paid in cash at the counter: 12 months, renewed at maturity (the product's instruction). */
async function openTermDeposit(cooperative: Cooperative, member: Member, amount: string): Promise<string> {
  const opened = await member.teller.post<{ id: string }>(
    `open a term deposit for ${member.name}`,
    '/api/v1/members/accounts/',
    { client: member.id, product: cooperative.products.termDeposit, initial_deposit: amount },
    `${cooperative.code}:open:term-deposit:${member.key}`,
  );
  return opened.id;
}

/**
 * Part of the borrower's current account pledged to their loan: asked by the head of Akwa, held at once, and
 * covering the loan only once direction, a second person, approves its request.
 */
async function pledgeDeposit(
  cooperative: Cooperative,
  loan: string,
  member: Member,
  amount: string,
  date: string,
): Promise<string> {
  const { branchHead, direction } = cooperative.staff;
  const asked = await branchHead.session.post<{ id: string; payload: { guaranteeId: string } }>(
    `pledge ${amount} XAF of ${member.name}'s account`,
    '/api/v1/loans/guarantees/',
    {
      loan,
      kind: 'pledged_deposit',
      value: amount,
      account: member.accountId,
      start_date: date,
      description: 'Nantissement du compte courant',
    },
  );
  await direction.session.post(
    `approve the pledge of ${member.name}`,
    `/api/v1/approvals/requests/${asked.id}/approve/`,
    { reason: 'Nantissement vérifié' },
  );
  return asked.payload.guaranteeId;
}

/** Granted after a send back (the branch head wants the workshop's lease in the file first), then paid out. */
async function grantedAfterSendBack(desk: LoanDesk, member: Member): Promise<string> {
  const application = await desk.submit(member, {
    product: 'shortTermCredit',
    amount: '1200000',
    termPeriods: 18,
    purpose: "Agrandissement de l'atelier",
  });
  await desk.decide(application, 'cashier', 'approve', 'Dossier complet');
  await desk.decide(application, 'branch_head', 'send_back', "Joindre le bail de l'atelier");
  const completed = await desk.decide(application, 'cashier', 'approve', 'Bail joint au dossier');
  const loan = loanOf(await desk.approveThrough(completed, 'direction'));
  await desk.disburse(loan, member);
  return loan;
}

/** Approved by the cashier, refused by the branch head with the reason the member is told. */
async function refusedByBranchHead(desk: LoanDesk, member: Member): Promise<LoanApplication> {
  const application = await desk.approveThrough(
    await desk.submit(member, {
      product: 'shortTermCredit',
      amount: '1000000',
      termPeriods: 12,
      purpose: 'Stock de marchandises',
    }),
    'cashier',
  );
  return desk.decide(
    application,
    'branch_head',
    'reject',
    'Revenus trop irréguliers pour ce montant; épargne insuffisante',
  );
}
