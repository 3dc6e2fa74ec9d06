import test, { type ExecutionContext } from 'ava';
import { Client, Connection } from '@temporalio/client';
import { NativeConnection } from '@temporalio/worker';
import type { Knex } from 'knex';
import pino from 'pino';
import type { Actor } from '../../activities/context';
import { createEnterprise } from '../../activities/enterprise/enterprises.activity';
import { submitLoanApplication } from '../../activities/loans/loan-applications.activity';
import { createLoanProduct } from '../../activities/loans/loan-products.activity';
import { startProvisioningRun } from '../../activities/loans/provisioning.activity';
import { Money } from '../../domain/money';
import { createWorker, exportProcessMetrics, installTemporalRuntime } from '../../runtime/worker';
import { testActivityContext } from '../helpers/app';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';
import { seriesValue } from '../helpers/metrics';
import { insertClient } from '../helpers/mothers';
import { freePort } from '../helpers/ports';
import { createUser } from '../helpers/users';
import { decideUpdate } from '../../workflows/definitions';
import { testClock } from '../helpers/clock';

/**
 * An enterprise whose credit caps warn rather than refuse (it has no share capital), with a loan application in review.
 */
async function applicationInReview(knex: Knex, actor: Actor) {
  const context = testActivityContext(knex);
  const enterprise = await createEnterprise(context, actor, {
    code: 'WM',
    name: 'Coop WM',
    legalForm: 'C',
    country: 'CM',
    timeZone: 'Africa/Douala',
    headOffice: { code: 'HQ', name: 'HQ', address: '', city: '' },
  });
  await knex('enterprise_configurations').where({ enterprise_id: enterprise.id }).update({ credit_cap_mode: 'warn' });
  const product = await createLoanProduct(context, actor, enterprise.id, {
    code: 'CRT',
    name: 'Crédit',
    termCategory: 'cta',
    method: 'constant_annuity',
    frequency: 'monthly',
    annualRate: '0.18',
    minAmount: '50000',
    maxAmount: '2000000',
    minTermPeriods: 1,
    maxTermPeriods: 12,
    maxGracePeriods: 0,
    feeRate: '0',
    feeFixed: '0',
    penaltyRate: '0',
    realEstate: false,
  });
  const headOffice = (await knex('branches').where({ enterprise_id: enterprise.id }).first('id')).id as string;
  const clientId = await insertClient(knex, enterprise.id, headOffice, actor.userId);
  // The submitter is a platform administrator, no loan officer: the head office's credit officer follows the loan.
  const officer = await createUser(knex, 'wm_officer', [
    { role: 'cashier', enterpriseId: enterprise.id, branchId: headOffice },
  ]);
  const input = {
    clientId,
    productId: product.id,
    amount: new Money(500000),
    termPeriods: 6,
    gracePeriods: 0,
    purpose: '',
    loanOfficerId: officer,
  };
  const { application } = await submitLoanApplication(context, actor, input);
  return application;
}

// A worker process as `npm run worker` with WORKER_METRICS_ADDRESS sets it up (runtime/start-components.ts). This file
// installs its own Temporal Runtime, so it does not use test/helpers/worker.ts, which installs one without metrics.
test(
  "a worker serves the Temporal SDK metrics and its process's own (build, pool, decisions, provisioning runs) " +
    'at its metrics address',
  async (t) => {
    const metricsAddress = `127.0.0.1:${await freePort()}`;
    installTemporalRuntime(pino({ level: 'warn' }), metricsAddress);
    const { knex } = await createTestDatabase(t);
    t.teardown(exportProcessMetrics(knex, 'c0ffee1'));
    // A user row only (decisions name their decider): this test signs nobody in, so no password is hashed.
    const [{ id: userId }] = await knex('users')
      .insert({ username: 'root', password_hash: '!', full_name: 'Root' })
      .returning('id');
    const application = await applicationInReview(knex, {
      userId,
      grants: [{ role: 'admin', enterpriseId: null, branchId: null }],
      requestId: 'test',
    });
    const run = await startProvisioningRun(knex, testClock(), {
      enterpriseId: application.enterpriseId,
      asOf: null,
      trigger: 'api',
      requestedBy: null,
    });

    const taskQueue = `test-metrics-${run.id}`;
    const { worker, client } = await startWorker(t, knex, taskQueue);
    const scraped = await worker.runUntil(async () => {
      const approval = await client.workflow.start('loanApproval', {
        taskQueue,
        workflowId: application.workflowId,
        args: [
          {
            applicationId: application.id,
            enterpriseId: application.enterpriseId,
            branchId: application.branchId,
            applicationNumber: application.number,
            stepTimeLimitSeconds: 3600,
          },
        ],
      });
      await approval.executeUpdate(decideUpdate, {
        args: [
          { deciderId: userId, step: 'cashier', decision: 'reject', comment: 'irregular income', requestId: null },
        ],
      });
      const provisioning = await client.workflow.execute('provisioningRun', {
        taskQueue,
        workflowId: `provisioning-run-${run.id}`,
        args: [{ enterpriseId: run.enterprise_id, runId: run.id }],
      });
      t.is(provisioning.status, 'completed');
      // Scraped while the worker runs: the exporter stops with the process's last Temporal connection.
      return (await fetch(`http://${metricsAddress}/metrics`)).text();
    });

    assertScraped(t, scraped, taskQueue);
  },
);

/** A worker of this process on its own task queue, and a client, both closed when the test ends. */
async function startWorker(t: ExecutionContext, knex: Knex, taskQueue: string) {
  const { temporalAddress, bundlePath } = testEnvironment();
  const workerConnection = await NativeConnection.connect({ address: temporalAddress });
  const clientConnection = await Connection.connect({ address: temporalAddress });
  t.teardown(async () => {
    await clientConnection.close();
    await workerConnection.close();
  });
  const worker = await createWorker({
    connection: workerConnection,
    namespace: 'default',
    taskQueue,
    knex,
    workflowBundlePath: bundlePath,
    clock: testClock,
  });
  const client = new Client({ connection: clientConnection, namespace: 'default' });
  return { worker, client };
}

/** The SDK's series of the task queue, and the process's own: build, pool, decisions and provisioning runs. */
function assertScraped(t: ExecutionContext, scraped: string, taskQueue: string): void {
  const queue = `namespace="default",service_name="temporal-core-sdk",task_queue="${taskQueue}"`;
  t.is(
    seriesValue(scraped, `temporal_worker_task_slots_available{${queue},worker_type="ActivityWorker"}`),
    100,
    "the SDK's worker metrics",
  );
  t.is(seriesValue(scraped, `temporal_workflow_completed{${queue},workflow_type="provisioningRun"}`), 1);
  t.regex(scraped, /^temporal_workflow_task_schedule_to_start_latency_count\{.*\} [1-9]/m);
  t.is(
    seriesValue(scraped, `coopbank_build_info{commit="c0ffee1",node_version="${process.version}",version="0.1.0"}`),
    1,
  );
  t.is(seriesValue(scraped, 'coopbank_db_pool_max_connections'), 10);
  for (const gauge of ['used_connections', 'free_connections', 'pending_acquires', 'pending_creates'])
    t.true(seriesValue(scraped, `coopbank_db_pool_${gauge}`)! >= 0, gauge);
  t.is(
    seriesValue(scraped, 'coopbank_loan_decisions_total{decision="reject"}'),
    1,
    'counted by the worker that persisted it',
  );
  t.is(seriesValue(scraped, 'coopbank_loan_decisions_total{decision="approve"}'), 0, 'known series start at 0');
  t.is(seriesValue(scraped, 'coopbank_provisioning_runs_total{outcome="completed"}'), 1);
}
