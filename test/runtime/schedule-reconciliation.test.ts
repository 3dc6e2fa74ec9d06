import test from 'ava';
import { Client, Connection } from '@temporalio/client';
import { TypedSearchAttributes } from '@temporalio/common';
import pino from 'pino';
import { reconcileEnterpriseSchedules } from '../../api/modules/enterprise/schedules.temporal';
import { enterpriseCodeKey, provisioningScheduleId } from '../../workflows/identities';
import { connectTemporalClient } from '../../runtime/services';
import { activitySetting } from '../helpers/activity-setting';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { freePort } from '../helpers/ports';
import { fileTeardown } from '../helpers/teardown';
import { newTaskQueue } from '../helpers/worker';

const file = fileTeardown(test);
const silent = pino({ level: 'silent' });

test(
  'the start does not wait on Temporal for the Schedules: they are retried in the background until in place, ' +
    'and the retries stop with the process',
  async (t) => {
    const { knex } = await createTestDatabase(file);
    const enterpriseId = await (await activitySetting(knex)).newEnterprise('SCH');
    const taskQueue = newTaskQueue();

    // Temporal out of reach: every attempt fails, the reconciliation keeps trying and ends when stopped.
    const unreachable = new Client({
      connection: Connection.lazy({ address: `127.0.0.1:${await freePort()}`, connectTimeout: 200 }),
    });
    const blocked = reconcileEnterpriseSchedules(unreachable, knex, taskQueue, silent, { firstMs: 20, maxMs: 50 });
    const outcome = await Promise.race([
      blocked.done.then(() => 'done'),
      new Promise((resolve) => setTimeout(() => resolve('still trying'), 1500)),
    ]);
    t.is(outcome, 'still trying');
    await blocked.stop();

    // Temporal back: the Schedule is created.
    const client = await connectTemporalClient(testEnvironment().temporalAddress, 'default');
    file.teardown(() => client.connection.close());
    const reconciled = reconcileEnterpriseSchedules(client, knex, taskQueue, silent, { firstMs: 20, maxMs: 50 });
    await reconciled.done;
    const schedule = client.schedule.getHandle(provisioningScheduleId(enterpriseId));
    const described = await schedule.describe();
    t.is(described.action.type, 'startWorkflow');
    // The runs it starts are found by the cooperative's code.
    const tags = described.action.typedSearchAttributes;
    t.is(tags instanceof TypedSearchAttributes ? tags.get(enterpriseCodeKey) : undefined, 'SCH');
    await schedule.delete();
  },
);
