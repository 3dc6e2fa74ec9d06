import type { Knex } from 'knex';
import type { ActivityContext, Actor } from '../../activities/context';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { testActivityContext } from './app';
import { createUser } from './users';

/**
 * What a test calling activities directly needs: their context (with the test's clock), a platform
 * administrator to act as, and enterprises created by the activity itself (chart, year, rules and all).
 */
export async function activitySetting(knex: Knex, clock?: () => Date) {
  const context: ActivityContext = testActivityContext(knex, clock);
  const userId = await createUser(knex, 'root', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const actor: Actor = { userId, grants: [{ role: 'admin', enterpriseId: null, branchId: null }], requestId: 'test' };
  const newEnterprise = async (code: string): Promise<string> => {
    const headOffice = { code: 'HQ', name: 'HQ', address: '', city: '' };
    return (
      await createEnterprise(context, actor, {
        code,
        name: `Coop ${code}`,
        legalForm: 'C',
        country: 'CM',
        timeZone: 'Africa/Douala',
        headOffice,
      })
    ).id;
  };
  return { context, actor, newEnterprise };
}
