import type { ParameterizedContext } from 'koa';
import type { Logger } from 'pino';

/** What the middleware chain puts on `ctx.state` for the handlers and for the log line. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The declared path of the route that matched (`/api/v1/x/{id}/`), for logs and metrics labels. */
  route?: string;
}

export type AppContext = ParameterizedContext<AppState>;
