import {
  chartById,
  chartOfEnterprise,
  ledgerLines,
  type EntryWithLines,
} from '../../../activities/accounts/ledger.queries';
import { reportingPackById } from '../../../activities/accounts/reporting-packs.queries';
import type { Loader } from '../../route';
import { enterpriseRowLoader } from '../enterprise-scope';

/** The resources of the accounts module a route loads (the router checks access: api/router.ts). */
export const accountLoaders = {
  /** The chart a path's `{chart_pk}` names: its accounts, statements and reports. */
  chart: { ...enterpriseRowLoader('The chart of accounts', chartById), param: 'chart_pk' },
  /** An enterprise's chart, by the enterprise's id (the journal book names the enterprise). */
  chartOfEnterprise: enterpriseRowLoader('The enterprise', chartOfEnterprise),
  /** A journal entry with its lines, seen by its branch's staff. */
  journalEntry: {
    name: 'The journal entry',
    load: async ({ knex }, id) => (await ledgerLines(knex, [id]))[0],
    scope: (entry) => ({ enterpriseId: entry.enterprise, branchId: entry.branch }),
  } satisfies Loader<EntryWithLines>,
  /** A pack is consolidated: a role in some branches does not read it. */
  reportingPack: { ...enterpriseRowLoader('The reporting pack', reportingPackById), wholeEnterprise: () => true },
};
