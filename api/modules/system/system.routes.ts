import { timingSafeEqual } from 'node:crypto';
import * as yup from 'yup';
import { AppError } from '../../../domain/errors';
import type { AppContext } from '../../context';
import type { RouteDeps } from '../../deps';
import { defineRoute } from '../../route';

// Each check's bound. A busy machine's first connection to the database takes a second or two: more is not ready.
const databaseCheckTimeoutMs = 4000;
const temporalCheckTimeoutMs = 2000;

const checkResults = ['ok', 'unreachable', 'timeout'] as const;
type CheckResult = (typeof checkResults)[number];

const readinessSchema = yup
  .object({
    status: yup.string().oneOf(['ok', 'unavailable']).required(),
    checks: yup
      .object({
        database: yup
          .string()
          .oneOf(checkResults)
          .required()
          .meta({ description: '`ok`, or `unreachable` / `timeout`: the details are in the log, not here.' }),
        temporal: yup.string().oneOf(checkResults).required(),
      })
      .required(),
  })
  .meta({ component: 'Readiness' });

/** Process liveness and readiness, and Prometheus metrics: what an orchestrator and a monitor poll. */
export const systemRoutes = [
  defineRoute({
    method: 'get',
    path: '/healthz',
    module: 'system',
    operationId: 'getHealth',
    summary: 'Liveness: the process is up and answering',
    access: 'public',
    response: yup.object({ status: yup.string().required() }),
    handler: () => ({ status: 'ok' }),
  }),
  defineRoute({
    method: 'get',
    path: '/readyz',
    module: 'system',
    operationId: 'getReadiness',
    summary: 'Readiness: the database answers a query and Temporal answers a call',
    description:
      'Answers 503 with the failing check named when either ' +
      'dependency is unreachable; the cause is logged, never shown.',
    access: 'public',
    response: readinessSchema,
    sameBodyStatuses: [503],
    handler: async ({ deps, ctx }) => {
      const [database, temporal] = await Promise.all([
        check(ctx, 'database', () => pingDatabase(deps)),
        check(ctx, 'temporal', () => pingTemporal(deps)),
      ]);
      const ready = database === 'ok' && temporal === 'ok';
      ctx.status = ready ? 200 : 503;
      ctx.body = { status: ready ? 'ok' : 'unavailable', checks: { database, temporal } };
      return undefined;
    },
  }),
  defineRoute({
    method: 'get',
    path: '/metrics',
    module: 'system',
    operationId: 'getMetrics',
    summary: 'Prometheus metrics: request counts and latency by route and status',
    description: 'Send `Authorization: Bearer <METRICS_TOKEN>`. Off (404) when no token is configured.',
    access: 'public',
    produces: 'text/plain',
    errorStatuses: [401, 404],
    refusals: ['metrics_token_required', 'route_not_found'],
    handler: async ({ deps, ctx }) => {
      if (deps.metricsToken === null) throw new AppError('not_found', 'route_not_found', `No resource at ${ctx.path}.`);
      if (!sameSecret(ctx.get('Authorization'), `Bearer ${deps.metricsToken}`))
        throw new AppError(
          'unauthenticated',
          'metrics_token_required',
          'Send the metrics token: Authorization: Bearer <METRICS_TOKEN>.',
        );
      ctx.type = deps.metrics.contentType;
      ctx.body = await deps.metrics.render();
      return undefined;
    },
  }),
];

/** One dependency check; a failure's cause goes to the log, its kind to the answer. */
async function check(ctx: AppContext, name: string, probe: () => Promise<unknown>): Promise<CheckResult> {
  try {
    await probe();
    return 'ok';
  } catch (error) {
    ctx.state.log.warn({ err: error, check: name }, 'readiness check failed');
    return /timeout|deadline/i.test(String((error as Error).message)) ? 'timeout' : 'unreachable';
  }
}

/**
 * `SELECT 1`, bounded in time whatever it waits on: a query first waits for a pooled connection, up to the pool's
 * acquire timeout, which knex's own query timeout does not count.
 */
async function pingDatabase(deps: RouteDeps): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(new Error(`no answer within the ${databaseCheckTimeoutMs} ms timeout`)),
      databaseCheckTimeoutMs,
    );
  });
  try {
    await Promise.race([deps.knex.raw('SELECT 1'), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

function pingTemporal(deps: RouteDeps): Promise<unknown> {
  const connection = deps.temporal.connection;
  return connection.withDeadline(Date.now() + temporalCheckTimeoutMs, () =>
    connection.workflowService.getSystemInfo({}),
  );
}

function sameSecret(sent: string, expected: string): boolean {
  const [a, b] = [Buffer.from(sent), Buffer.from(expected)];
  return a.length === b.length && timingSafeEqual(a, b);
}
