import * as yup from 'yup';
import type { RouteDeps } from '../deps';
import { defineRoute } from '../route';

const checkTimeoutMs = 2000;

const readinessSchema = yup.object({
  status: yup.string().oneOf(['ok', 'unavailable']).required(),
  checks: yup.object({
    database: yup.string().required().meta({ description: '`ok`, or why the database check failed.' }),
    temporal: yup.string().required().meta({ description: '`ok`, or why the Temporal check failed.' }),
  }),
});

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
    description: 'Answers 503 with the failing check named when either dependency is unreachable.',
    access: 'public',
    response: readinessSchema,
    errorStatuses: [503],
    handler: async ({ deps, ctx }) => {
      const [database, temporal] = await Promise.all([checkDatabase(deps), checkTemporal(deps)]);
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
    access: 'public',
    produces: 'text/plain',
    handler: async ({ deps, ctx }) => {
      ctx.type = deps.metrics.contentType;
      ctx.body = await deps.metrics.render();
      return undefined;
    },
  }),
];

async function checkDatabase(deps: RouteDeps): Promise<string> {
  try {
    await deps.knex.raw('SELECT 1').timeout(checkTimeoutMs);
    return 'ok';
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}

async function checkTemporal(deps: RouteDeps): Promise<string> {
  try {
    const connection = deps.temporal.connection;
    await connection.withDeadline(Date.now() + checkTimeoutMs, () => connection.workflowService.getSystemInfo({}));
    return 'ok';
  } catch (error) {
    return `failed: ${(error as Error).message}`;
  }
}
