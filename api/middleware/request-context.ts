import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { AppState } from '../context';
import type { HttpMetrics } from '../metrics';

// A caller-supplied id (a proxy's, a client's retry) is kept only when it is a UUID: it goes to logs and to the
// audit trail, where nothing else may be injected.
const acceptableRequestId = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** Headers every answer carries: no MIME sniffing, no referrer, no framing; HSTS when TLS is in front. */
function setSecurityHeaders(ctx: Context, secure: boolean): void {
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Referrer-Policy', 'no-referrer');
  ctx.set('X-Frame-Options', 'DENY');
  if (secure) ctx.set('Strict-Transport-Security', 'max-age=31536000; includeSubDomains');
}

/**
 * First in the chain: gives the request its id (echoed in `X-Request-Id`), a child logger, and on the way
 * out one structured log line and the metrics observation. Being outermost, it also sees the status the
 * error middleware chose.
 */
export function requestContext(logger: Logger, metrics: HttpMetrics, secure: boolean): Middleware<AppState> {
  return async (ctx, next) => {
    const started = process.hrtime.bigint();
    const incoming = ctx.get('X-Request-Id');
    const requestId = acceptableRequestId.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    setSecurityHeaders(ctx, secure);
    try {
      await next();
    } finally {
      // Set last, so that a page that declared its own policy (the docs) keeps it; API answers are never cached.
      if (!ctx.response.get('Content-Security-Policy')) ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
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
