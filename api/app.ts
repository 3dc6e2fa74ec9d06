import Koa from 'koa';
import { BoundedMemo } from './bounded-memo';
import type { AppState } from './context';
import type { ApiDeps, RouteDeps } from './deps';
import { docsRoutes } from './docs';
import { createHttpMetrics } from './metrics';
import { authenticate } from './middleware/authenticate';
import { errorHandler } from './middleware/errors';
import { requestContext } from './middleware/request-context';
import type { AnyRoute } from './route';
import { buildRouter } from './router';
import { apiRoutes } from './routes';
import { version } from '../package.json';

/** Some 100 bytes each: a few MB for the accounts (and as many loans) a busy process moves money on. */
const accountScopesRemembered = 50_000;

/**
 * Builds the Koa application: the middleware chain and the router made from the route declarations.
 * No port is opened and nothing global is touched, so tests build as many apps as they need.
 */
export function createApp(deps: ApiDeps, routes: readonly AnyRoute[] = apiRoutes): Koa<AppState> {
  const routeDeps: RouteDeps = {
    ...deps,
    metrics: createHttpMetrics(deps),
    activities: { knex: deps.knex, clock: deps.clock, auth: deps.auth },
    accountScopes: new BoundedMemo(accountScopesRemembered),
    loanScopes: new BoundedMemo(accountScopesRemembered),
  };
  // The docs routes first: `/api/v1/events/{id}/` would otherwise capture `/api/v1/events/docs/`.
  const router = buildRouter([...docsRoutes(routes, version), ...routes], routeDeps);
  // Behind proxies, only the addresses they appended to X-Forwarded-For are trusted; the left part is the client's to
  // choose.
  const app = new Koa<AppState>({ proxy: deps.trustProxy, maxIpsCount: deps.trustedProxyHops });
  app.use(requestContext(deps.logger, routeDeps.metrics, deps.secureCookies));
  app.use(errorHandler());
  app.use(authenticate(deps));
  app.use(router.routes());
  app.use(router.allowedMethods());
  return app;
}
