import { CoopbankApi, type Page, type Session } from './api-client';
import { addDays, BusinessCalendar } from './business-calendar';
import { createCooperative, type StaffAccount } from './cooperative';
import { runCashDay, type CashDayOutcome } from './cash-day';
import { showCreditPortfolio, type CreditPortfolioOutcome } from './credit-portfolio';
import { showCreditInsurance, type CreditInsuranceOutcome } from './credit-insurance';
import { restructureDoubtfulLoan, type RestructuringOutcome } from './credit-restructuring';
import { admitMembers } from './members';
import { subscribeCapital } from './shares';
import { ProgressFile } from './progress';
import { tellTheStory, type StoryOutcome } from './story';
import { prepayLoan, type PrepaymentOutcome } from './credit-prepayment';
import { recoverAfterWriteOff, type RecoveryOutcome } from './credit-recovery';
import { giveGuarantees, type GuarantorsOutcome } from './credit-guarantors';
import { importCooperative, type ImportDemoOutcome } from './import-demo';

interface DemoOptions {
  baseUrl: string;
  /** The platform administrator npm start created on its first start. */
  admin: { username: string; password: string };
  /** Code of the demo cooperative: one demo per code. */
  code: string;
  log?: (line: string) => void;
  /** Where the run keeps its progress: the service's DATA_DIR (`demo/<code>.json`). */
  dataDir: string;
  /** Stop after this part (tests of a resumed load). */
  stopAfter?: DemoPart;
}

export interface EnterpriseSummary {
  id: string;
  code: string;
  name: string;
}

export interface DemoReport {
  enterprise: EnterpriseSummary;
  chartId: string;
  businessDate: string;
  staff: Omit<StaffAccount, 'session'>[];
  story: StoryOutcome;
  cashDay: CashDayOutcome;
  /** Issue 30: a loan written off under four eyes, and a recovery on it. */
  recovery: RecoveryOutcome;
  /** Issue 30: a loan prepaid by 30 %, its term shortened (schedule version 2). */
  prepayment: PrepaymentOutcome;
  guarantors: GuarantorsOutcome;
  creditPortfolio: CreditPortfolioOutcome;
  creditInsurance: CreditInsuranceOutcome;
  restructuring: RestructuringOutcome;
  /** Issue 31: a second cooperative moved in from files by the go-live import, under four eyes. */
  goLiveImport: ImportDemoOutcome;
}

/** Where a run ends: loaded (now, or finished by resuming), or a cooperative of this code this run cannot continue. */
type DemoOutcome =
  | { kind: 'loaded'; report: DemoReport; resumed: boolean }
  | {
      kind: 'exists';
      enterprise: EnterpriseSummary;
      why: 'loaded_earlier' | 'not_ours' | 'story_interrupted';
      staff?: { username: string; password: string }[];
    };

/** The parts of a load, in order: a test (or an operator in a hurry) may stop after one; the next run continues. */
type DemoPart = 'cooperative' | 'members' | 'capital';

/**
 * Loads the demo cooperative through the API of a running service. A run interrupted halfway left its progress
 * (scripts/demo/progress.ts): the next run continues it, finding what exists and making the rest. A cooperative
 * of the code that a finished run loaded, or that no run of this machine started, is left untouched.
 */
export async function loadDemoCooperative(options: DemoOptions): Promise<DemoOutcome> {
  const log = options.log ?? (() => undefined);
  const api = new CoopbankApi(options.baseUrl);
  const progress = ProgressFile.of(options.dataDir, options.code);
  const platformAdmin = await api.signIn(options.admin.username, options.admin.password);
  const existing = await enterpriseWithCode(platformAdmin, options.code);
  const left = earlierRun(existing, progress, options.code, log);
  if (left !== undefined) return left;

  log(`creating the cooperative ${options.code}: branches, staff, products`);
  const cooperative = await createCooperative(api, platformAdmin, options.code, progress);
  if (options.stopAfter === 'cooperative') throw new DemoStopped('cooperative');
  log('admitting members: profiles, accounts, deposits, shares');
  const members = await admitMembers(cooperative, progress);
  if (options.stopAfter === 'members') throw new DemoStopped('members');
  const capital = await subscribeCapital(cooperative, members);
  if (options.stopAfter === 'capital') throw new DemoStopped('capital');
  const direction = cooperative.staff.direction.session;
  const calendar = await BusinessCalendar.of(direction, cooperative.staff.admin.session, cooperative.enterpriseId);
  progress.update((state) => {
    state.storyStarted = true;
  });
  const story = await tellTheStory(cooperative, members, capital, calendar, log);
  const guarantors = await giveGuarantees(cooperative, members, story.loans.repaidPartly, calendar.today, log);
  const cashDay = await runCashDay(cooperative, members, calendar.today, log);
  // The end of day moved the business date: the calendar reads it again.
  const after = await BusinessCalendar.of(direction, cooperative.staff.admin.session, cooperative.enterpriseId);
  const recovery = await recoverAfterWriteOff(cooperative, members.mvondo, log);
  const prepayment = await prepayLoan(cooperative, members.moussa, log);
  const creditPortfolio = await showCreditPortfolio(cooperative, story.loans.doubtful, after.today, log);
  // After the portfolio is read: restructured with its arrears capitalised, the loan leaves PAR 30.
  const restructuring = await restructureDoubtfulLoan(cooperative, story.loans.doubtful, log);
  const creditInsurance = await showCreditInsurance(cooperative, after.today, log);
  // Four eyes, left to see: a move of the business date waits in the administrator's inbox (GET
  // /api/v1/approvals/pending/).
  await after.requestMove(addDays(after.today, 1));
  log(
    `${after.today}: direction asked to move the business date a day on; the request waits in the administrator's ` +
      `inbox`,
  );
  const goLiveImport = await importCooperative(api, platformAdmin, options, log);
  const charts = await direction.get<Page<{ id: string }>>('find the chart of accounts', '/api/v1/accounts/charts/', {
    enterprise: cooperative.enterpriseId,
  });
  progress.update((state) => Object.assign(state, { done: true }));
  return {
    kind: 'loaded',
    resumed: existing !== undefined,
    report: {
      enterprise: { id: cooperative.enterpriseId, code: cooperative.code, name: cooperative.name },
      chartId: charts.results[0]!.id,
      businessDate: after.today,
      staff: Object.values(cooperative.staff).map(({ session: _session, ...account }) => account),
      story,
      cashDay,
      recovery,
      prepayment,
      guarantors,
      creditPortfolio,
      creditInsurance,
      restructuring,
      goLiveImport,
    },
  };
}

/**
 * What an earlier run of this code left: an outcome when the cooperative is to be left untouched, or nothing when
 * this run makes it or continues it (forgetting a progress whose cooperative the database no longer has).
 */
function earlierRun(
  existing: EnterpriseSummary | undefined,
  progress: ProgressFile,
  code: string,
  log: (line: string) => void,
): DemoOutcome | undefined {
  const earlier = progress.progress;
  if (existing !== undefined) {
    const staff = Object.entries(earlier.passwords).map(([username, password]) => ({ username, password }));
    if (earlier.enterpriseId !== existing.id) return { kind: 'exists', enterprise: existing, why: 'not_ours' };
    if (earlier.done === true) return { kind: 'exists', enterprise: existing, why: 'loaded_earlier', staff };
    // Four months of business in one pass: its steps are not found again one by one.
    if (earlier.storyStarted === true) return { kind: 'exists', enterprise: existing, why: 'story_interrupted', staff };
    log(`continuing the cooperative ${code} an earlier run left halfway`);
  } else if (earlier.enterpriseId !== undefined) {
    // The database was reset since: that progress speaks of a cooperative that is gone.
    progress.update((state) =>
      Object.assign(state, {
        enterpriseId: undefined,
        passwords: {},
        members: {},
        accounts: {},
        storyStarted: undefined,
        done: undefined,
      }),
    );
  }
  return undefined;
}

/** A load stopped on purpose after a part (`DemoOptions.stopAfter`): the next run continues from there. */
export class DemoStopped extends Error {
  constructor(readonly after: DemoPart) {
    super(`stopped after the ${after} as asked`);
  }
}

async function enterpriseWithCode(platformAdmin: Session, code: string): Promise<EnterpriseSummary | undefined> {
  const found = await platformAdmin.get<Page<EnterpriseSummary>>(
    'look for an earlier demo',
    '/api/v1/enterprise/enterprises/',
    { search: code, page_size: 100 },
  );
  const enterprise = found.results.find((candidate) => candidate.code.toLowerCase() === code.toLowerCase());
  return enterprise === undefined ? undefined : { id: enterprise.id, code: enterprise.code, name: enterprise.name };
}
