import { CoopbankApi, type Page, type Session } from './api-client';
import { BusinessCalendar } from './business-calendar';
import { createCooperative, type StaffAccount } from './cooperative';
import { admitMembers } from './members';
import { subscribeCapital } from './shares';
import { tellTheStory, type StoryOutcome } from './story';

interface DemoOptions {
  baseUrl: string;
  /** The platform administrator npm start created on its first start. */
  admin: { username: string; password: string };
  /** Code of the demo cooperative: one demo per code. */
  code: string;
  log?: (line: string) => void;
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
}

type DemoOutcome = { kind: 'loaded'; report: DemoReport } | { kind: 'exists'; enterprise: EnterpriseSummary };

/**
 * Loads the demo cooperative through the API of a running service, or finds that a cooperative with its code
 * is already there (the passwords of its staff were printed when it was loaded) and leaves it untouched.
 */
export async function loadDemoCooperative(options: DemoOptions): Promise<DemoOutcome> {
  const log = options.log ?? (() => undefined);
  const api = new CoopbankApi(options.baseUrl);
  const platformAdmin = await api.signIn(options.admin.username, options.admin.password);
  const existing = await enterpriseWithCode(platformAdmin, options.code);
  if (existing !== undefined) return { kind: 'exists', enterprise: existing };

  log(`creating the cooperative ${options.code}: branches, staff, products`);
  const cooperative = await createCooperative(api, platformAdmin, options.code);
  log('admitting members: profiles, accounts, deposits, shares');
  const members = await admitMembers(cooperative);
  const capital = await subscribeCapital(cooperative, members);
  const direction = cooperative.staff.direction.session;
  const calendar = await BusinessCalendar.of(direction, cooperative.enterpriseId);
  const story = await tellTheStory(cooperative, members, capital, calendar, log);
  const charts = await direction.get<Page<{ id: string }>>('find the chart of accounts', '/api/v1/accounts/charts/', { enterprise: cooperative.enterpriseId });
  return {
    kind: 'loaded',
    report: {
      enterprise: { id: cooperative.enterpriseId, code: cooperative.code, name: cooperative.name },
      chartId: charts.results[0]!.id,
      businessDate: calendar.today,
      staff: Object.values(cooperative.staff).map(({ session: _session, ...account }) => account),
      story,
    },
  };
}

async function enterpriseWithCode(platformAdmin: Session, code: string): Promise<EnterpriseSummary | undefined> {
  const found = await platformAdmin.get<Page<EnterpriseSummary>>('look for an earlier demo', '/api/v1/enterprise/enterprises/', { search: code, page_size: 100 });
  const enterprise = found.results.find((candidate) => candidate.code.toLowerCase() === code.toLowerCase());
  return enterprise === undefined ? undefined : { id: enterprise.id, code: enterprise.code, name: enterprise.name };
}
