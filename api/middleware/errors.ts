import type { Middleware } from 'koa';
import { AppError, RateLimitedError } from '../../domain/errors';
import { clientFaultOf } from '../../db/errors';
import { isProblemCode } from '../../domain/error-catalogue';
import type { AppState } from '../context';
import { dependencyProblemOf, sendProblem, statusOfKind } from '../problem';

/** An error raised by Koa or a middleware with an HTTP status (koa's http-errors, our body reader). */
interface HttpError extends Error {
  status: number;
  expose?: boolean;
  code?: string;
  headers?: Record<string, string>;
}

/**
 * Turns every failure into problem+json. AppErrors map by kind; HTTP errors of 4xx keep their status; all
 * else is a 500 whose details go to the log only, never to the client, who gets the request id instead.
 */
export function errorHandler(): Middleware<AppState> {
  return async (ctx, next) => {
    try {
      await next();
      // The router answers an unknown path (404) or method (405, with `Allow`) with a bare status.
      if (ctx.body === undefined || ctx.body === null) {
        if (ctx.status === 404) sendProblem(ctx, 404, 'route_not_found', `No resource at ${ctx.path}.`);
        if (ctx.status === 405) {
          sendProblem(
            ctx,
            405,
            'method_not_allowed',
            `${ctx.method} is not allowed on ${ctx.path} (allowed: ${ctx.response.get('Allow')}).`,
          );
        }
        if (ctx.status === 501) sendProblem(ctx, 501, 'not_implemented', `${ctx.method} is not supported.`);
      }
    } catch (error) {
      if (error instanceof AppError) {
        if (error instanceof RateLimitedError) ctx.set('Retry-After', String(error.retryAfterSeconds));
        if (error.kind === 'unauthenticated') ctx.set('WWW-Authenticate', 'Bearer');
        const { kind, code, message, fieldErrors } = error as AppError;
        sendProblem(ctx, statusOfKind[kind], code, message, fieldErrors);
        return;
      }
      const http = error as Partial<HttpError>;
      if (typeof http.status === 'number' && http.status >= 400 && http.status < 500) {
        for (const [name, value] of Object.entries(http.headers ?? {})) ctx.set(name, value);
        const detail = http.expose === false ? 'The request was refused.' : String(http.message);
        // Our body reader names its refusals; another library's 4xx is answered as a bad request of its status.
        sendProblem(ctx, http.status, isProblemCode(http.code) ? http.code : 'invalid_request', detail);
        return;
      }
      // A safety net behind validation: the database refused the input itself. Logged, since validation
      // should have caught it first.
      const fault = clientFaultOf(error);
      if (fault !== undefined) {
        ctx.state.log.warn({ err: error }, 'input refused by the database');
        if (fault === 'missing_reference')
          sendProblem(ctx, 404, 'not_found', 'A resource the request refers to was not found.');
        else sendProblem(ctx, 400, 'invalid_value', 'A value of the request cannot be stored.');
        return;
      }
      const unavailable = dependencyProblemOf(error);
      if (unavailable !== undefined) {
        ctx.state.log.warn({ err: error }, 'dependency unavailable');
        sendProblem(ctx, 503, unavailable.code, unavailable.detail);
        return;
      }
      ctx.state.log.error({ err: error }, 'unhandled error');
      sendProblem(
        ctx,
        500,
        'internal_error',
        `An unexpected error occurred. Quote request id ${ctx.state.requestId} to support.`,
      );
    }
  };
}
