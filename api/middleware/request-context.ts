import { randomUUID } from 'node:crypto';
import type { Context, Middleware } from 'koa';
import type { Logger } from 'pino';
import type { Grant } from '../../domain/access';
import type { AppContext, AppState } from '../context';
import type { HttpMetrics } from '../metrics';

// A caller-supplied id (a proxy's or a client's request id, an enterprise named in the path or query) is kept only when
// it is a UUID: it goes to logs (the request id to the audit trail too), where nothing else may be injected.
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

// The one route whose own id is an enterprise; nested sub-resources name it `enterprise_pk`.
const enterpriseRoute = '/api/v1/enterprise/enterprises/{id}/';

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
    const requestId = uuid.test(incoming) ? incoming : randomUUID();
    ctx.state.requestId = requestId;
    ctx.state.log = logger.child({ request_id: requestId });
    ctx.set('X-Request-Id', requestId);
    setSecurityHeaders(ctx, secure);
    try {
      await next();
    } finally {
      // Set last, so that a page that declared its own policy (the docs) keeps it; API answers are never cached.
      if (!ctx.response.get('Content-Security-Policy'))
        ctx.set('Content-Security-Policy', "default-src 'none'; frame-ancestors 'none'");
      if (!ctx.response.get('Cache-Control')) ctx.set('Cache-Control', 'no-store');
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const route = ctx.state.route ?? 'unmatched';
      metrics.observe(ctx.method, route, ctx.status, seconds);
      ctx.state.log.info(
        {
          method: ctx.method,
          path: ctx.path,
          route,
          status: ctx.status,
          duration_ms: Math.round(seconds * 1e6) / 1e3,
          ...whoAndWhere(ctx),
        },
        'request',
      );
    }
  };
}

/**
 * The signed-in user and the enterprise the request concerns, when known: ids and the username, never a token or a
 * body.
 */
function whoAndWhere(ctx: AppContext): { user_id?: string; username?: string; enterprise_id?: string } {
  const principal = ctx.state.principal;
  const enterpriseId = namedEnterprise(ctx) ?? onlyEnterpriseOf(principal?.grants ?? []);
  return {
    ...(principal === undefined ? {} : { user_id: principal.userId, username: principal.username }),
    ...(enterpriseId === undefined ? {} : { enterprise_id: enterpriseId }),
  };
}

/**
 * The enterprise the path (`enterprise_pk`, or the enterprise's own route) or the `enterprise` query parameter names.
 */
function namedEnterprise(ctx: AppContext): string | undefined {
  const params = (ctx as { params?: Record<string, string> }).params ?? {};
  const named =
    params.enterprise_pk ?? (ctx.state.route === enterpriseRoute ? params.id : undefined) ?? ctx.query.enterprise;
  return typeof named === 'string' && uuid.test(named) ? named : undefined;
}

/** A user whose roles all lie in one enterprise concerns that one whatever they ask: any other answers them 404. */
function onlyEnterpriseOf(grants: readonly Grant[]): string | undefined {
  const enterprises = new Set(grants.map((grant) => grant.enterpriseId));
  const [only] = enterprises;
  return enterprises.size === 1 && only !== null ? only : undefined;
}
