import type { EndOfDayRunRow } from '../../../activities/enterprise/end-of-day.activity';
import { endOfDayRunById } from '../../../activities/enterprise/end-of-days.queries';
import type { MonthEndRunRow } from '../../../activities/enterprise/month-end.activity';
import { monthEndRunById } from '../../../activities/enterprise/month-ends.queries';
import { allocationById, type AllocationRow } from '../../../activities/enterprise/result-allocations.queries';
import type { Branch } from '../../../db/models/branch.model';
import { branchById } from '../../../activities/enterprise/branches.queries';
import type { Enterprise } from '../../../db/models/enterprise.model';
import { enterpriseById } from '../../../activities/enterprise/enterprises.queries';
import type { EnterpriseConfiguration } from '../../../db/models/enterprise-configuration.model';
import { configurationOf } from '../../../activities/enterprise/configuration.queries';
import type { ExerciceComptable } from '../../../db/models/exercice-comptable.model';
import { exerciceById } from '../../../activities/enterprise/exercices.queries';
import type { GovernanceMember } from '../../../db/models/governance-member.model';
import type { GovernanceOrgan } from '../../../db/models/governance-organ.model';
import { mandateById, organById } from '../../../activities/enterprise/governance.queries';
import type { Loader } from '../../route';

/** The reads of the enterprise module that routes share: the resources they load by id. */

/** A mandate with its organ, whose enterprise it belongs to. */
interface Mandate {
  member: GovernanceMember;
  organ: GovernanceOrgan;
}

const atEnterprise = (enterpriseId: string) => ({ enterpriseId });

/** The resources of the enterprise module a route loads by id (the router checks access: api/router.ts). */
export const enterpriseLoaders = {
  enterprise: {
    name: 'The enterprise',
    load: async ({ knex }, id) => enterpriseById(knex, id),
    scope: (enterprise) => atEnterprise(enterprise.id),
  } satisfies Loader<Enterprise>,
  configuration: {
    // The enterprise's own settings, loaded by its {enterprise_pk}: absent only with the enterprise.
    name: 'The enterprise',
    load: async ({ knex }, enterpriseId) => configurationOf(knex, enterpriseId),
    scope: (configuration) => atEnterprise(configuration.enterpriseId),
  } satisfies Loader<EnterpriseConfiguration>,
  branch: {
    name: 'The branch',
    load: async ({ knex }, id) => branchById(knex, id),
    // Its own staff see a branch; only the enterprise's roles change it.
    scope: (branch) => ({ enterpriseId: branch.enterpriseId, branchId: branch.id }),
    changeScope: (branch) => atEnterprise(branch.enterpriseId),
  } satisfies Loader<Branch>,
  exercice: {
    name: 'The accounting year',
    load: async ({ knex }, id) => exerciceById(knex, id),
    scope: (exercice) => atEnterprise(exercice.enterpriseId),
  } satisfies Loader<ExerciceComptable>,
  allocation: {
    name: 'The result allocation',
    load: async ({ knex }, id) => allocationById(knex, id),
    scope: (row) => atEnterprise(row.enterprise_id),
  } satisfies Loader<AllocationRow>,
  monthEnd: {
    name: 'The month end',
    load: async ({ knex }, id) => monthEndRunById(knex, id),
    scope: (run) => atEnterprise(run.enterprise_id),
    // Its amounts are the enterprise's and its lines name every branch's loans and accounts.
    wholeEnterprise: () => true,
  } satisfies Loader<MonthEndRunRow>,
  endOfDay: {
    name: 'The end of day',
    load: async ({ knex }, id) => endOfDayRunById(knex, id),
    scope: (run) => atEnterprise(run.enterprise_id),
    // The enterprise's figures: its provisioning, its maturities.
    wholeEnterprise: () => true,
  } satisfies Loader<EndOfDayRunRow>,
  organ: {
    name: 'The governance organ',
    load: async ({ knex }, id) => organById(knex, id),
    scope: (organ) => atEnterprise(organ.enterpriseId),
  } satisfies Loader<GovernanceOrgan>,
  mandate: {
    name: 'The governance member',
    load: async ({ knex }, id) => {
      const member = await mandateById(knex, id);
      const organ = member && (await organById(knex, member.organId));
      return member && organ && { member, organ };
    },
    scope: ({ organ }) => atEnterprise(organ.enterpriseId),
  } satisfies Loader<Mandate>,
};
