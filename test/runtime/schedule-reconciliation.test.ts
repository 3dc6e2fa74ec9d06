import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import pino from 'pino';
import { provisioningScheduleId, reconcileProvisioningSchedules } from '../../api/modules/loans/provisioning.temporal';
import { createEnterprise } from '../../activities/enterprise/create-enterprise.activity';
import { connectTemporalClient } from '../../runtime/services';
import { testActivityContext } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { freePort } from '../helpers/ports';
import { fileTeardown } from '../helpers/teardown';
import { createUser } from '../helpers/users';
import { newTaskQueue } from '../helpers/worker';

const file = fileTeardown(test);
const silent = pino({ level: 'silent' });

test('the start does not wait on Temporal for the Schedules: they are retried in the background until in place, and the retries stop with the process', async (t) => {
  const { knex } = await createTestDatabase(file);
  const userId = await createUser(knex, 'schedules', [{ role: 'admin', enterpriseId: null, branchId: null }]);
  const actor = { userId, grants: [{ role: 'admin' as const, enterpriseId: null, branchId: null }], requestId: 'test' };
  const headOffice = { code: 'HQ', name: 'HQ', address: '', city: '' };
  const { id: enterpriseId } = await createEnterprise(testActivityContext(knex), actor, { code: 'SCH', name: 'Schedules', legalForm: 'C', country: 'CM', timeZone: 'Africa/Douala', headOffice });
  const taskQueue = newTaskQueue();

  // Temporal out of reach: every attempt fails, the reconciliation keeps trying and ends when stopped.
  const unreachable = new Client({ connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 200 }) });
  const blocked = reconcileProvisioningSchedules(unreachable, knex, taskQueue, silent, { firstMs: 20, maxMs: 50 });
  const outcome = await Promise.race([blocked.done.then(() => 'done'), new Promise((resolve) => setTimeout(() => resolve('still trying'), 1500))]);
  t.is(outcome, 'still trying');
  await blocked.stop();

  // Temporal back: the Schedule is created.
  const client = await connectTemporalClient(testEnvironment().temporalAddress, 'default');
  file.teardown(() => client.connection.close());
  const reconciled = reconcileProvisioningSchedules(client, knex, taskQueue, silent, { firstMs: 20, maxMs: 50 });
  await reconciled.done;
  const schedule = client.schedule.getHandle(provisioningScheduleId(enterpriseId));
  const described = await schedule.describe();
  t.is(described.action.type, 'startWorkflow');
  await schedule.delete();
});
