import type { Knex } from 'knex';
import type { Grant } from '../domain/access';

export interface AuthSettings {
  jwtSecret: string;
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  /** A sign-in ends this long after it began, however often its tokens are refreshed. */
  sessionTtlSeconds: number;
}

/** What every activity may use. The clock is injected so tests can move time (token expiry, business dates). */
export interface ActivityContext {
  knex: Knex;
  clock: () => Date;
  auth: AuthSettings;
}

/**
 * What an operation that needs no credentials uses: a request's executor runs it in the worker, with the decision's
 * transaction.
 */
export type DataContext = Pick<ActivityContext, 'knex' | 'clock'>;

/**
 * Where an operation was asked from, for the audit trail: the API request's id and the client's address as the API
 * saw it (behind a trusted proxy, the forwarded one), both built by `requestOrigin` (api/context.ts) and carried
 * through the workflows' inputs and updates to the activity that writes the row.
 */
export interface RequestOrigin {
  requestId: string | null;
  /** Optional: absent from the inputs of recorded workflow histories, and from work no request asked for. */
  address?: string;
}

/** Who asked for a change, as the audit trail records them. */
export interface Requester extends RequestOrigin {
  userId: string;
}

/** Who performs an operation: recorded in the audit trail, and whose grants are checked. */
export interface Actor {
  userId: string;
  grants: readonly Grant[];
  requestId: string;
  /** The client's address as the API saw it (behind a trusted proxy, the forwarded one), for the audit trail. */
  address?: string;
}
