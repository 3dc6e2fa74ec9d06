import { randomUUID } from 'node:crypto';
import type { Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AppState } from '../context';
import type { HttpMetrics } from '../metrics';

// A caller-supplied id is kept only if it is short and plain, so it cannot inject anything into logs.
const acceptableRequestId = /^[A-Za-z0-9._-]{1,64}$/;

/**
 * First in the chain: gives the request its id (echoed in `X-Request-Id`), a child logger, and on the way
 * out one structured log line and the metrics observation. Being outermost, it also sees the status the
 * error middleware chose.
 */
export function requestContext(logger: Logger, metrics: HttpMetrics): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    try {
      await next();
    } finally {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = ctx.state.route ?? 'unmatched';
      metrics.observe(ctx.method, route, ctx.status, seconds);
      ctx.state.log.info(
        { method: ctx.method, path: ctx.path, route, status: ctx.status, duration_ms: Math.round(seconds * 1e6) / 1e3 },
        'request',
      );
    }
  };
}
