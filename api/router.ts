import Router from '@koa/router';
import type { AppState } from './context';
import type { RouteDeps } from './deps';
import { readJsonBody } from './json-body';
import type { AnyRoute } from './route';
import { validateInput } from './validation';

/** `/loans/{id}/` (OpenAPI) to `/loans/:id/` (router). */
export function toRouterPath(path: string): string {
  return path.replace(/\{([A-Za-z_][A-Za-z0-9_]*)\}/g, ':$1');
}

export function buildRouter(routes: readonly AnyRoute[], deps: RouteDeps): Router<AppState> {
  const router = new Router<AppState>();
  for (const route of routes) {
    router[route.method](toRouterPath(route.path), async (ctx) => {
      ctx.state.route = route.path;
      const params = route.params ? await validateInput(route.params, ctx.params, 'path') : undefined;
      const query = route.query ? await validateInput(route.query, ctx.query, 'query') : undefined;
      const body = route.body
        ? await validateInput(route.body, await readJsonBody(ctx, deps.bodyLimitBytes), 'body')
        : undefined;
      const result = await route.handler({ params, query, body, deps, ctx });
      if (result !== undefined) {
        ctx.status = route.status ?? 200;
        ctx.body = result;
      }
    });
  }
  return router;
}
