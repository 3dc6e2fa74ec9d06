import test from 'ava';
import { workerSelfCheck } from '../../workflows';
import { createTestDatabase } from '../helpers/database';
import { withWorker } from '../helpers/worker';

test(
  'a workflow runs through the real Temporal server and a real worker, whose activity reads the ' + 'database',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    const [migration] = await knex('knex_migrations').select('name').orderBy('id', 'desc').limit(1);

    const result = await withWorker(knex, ({ client, taskQueue }) =>
      client.workflow.execute(workerSelfCheck, { taskQueue, workflowId: `worker-self-check-${taskQueue}`, args: [{}] }),
    );

    t.is(result.latestMigration, migration.name);
    t.true(result.migrationsApplied >= 1);
    t.regex(result.serverVersion, /^\d+\.\d+/);
    t.true(result.taskQueue.startsWith('test-'));
  },
);
