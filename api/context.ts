import type { ParameterizedContext } from 'koa';
import type { Logger } from 'pino';
import type { RequestOrigin } from '../activities/context';
import type { Principal } from './auth/principal';

/** What the middleware chain puts on `ctx.state` for the handlers and for the log line. */
export interface AppState {
  requestId: string;
  log: Logger;
  /** The declared path of the route that matched (`/api/v1/x/{id}/`), for logs and metrics labels. */
  route?: string;
  /** The signed-in user, when the request carried a valid access token (see middleware/authenticate.ts). */
  principal?: Principal;
  /** Why a token was present but not accepted: the 401 of a protected route says so. */
  authFailure?: 'token_expired' | 'token_invalid' | 'token_revoked';
}

export type AppContext = ParameterizedContext<AppState>;

/** The one way a request's id and its client's address reach an activity's audit row (docs/architecture.md §7). */
export const requestOrigin = (ctx: AppContext): Required<RequestOrigin> & { requestId: string } => ({
  requestId: ctx.state.requestId,
  address: ctx.ip,
});
