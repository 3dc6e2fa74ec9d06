import { Transform, type Readable } from 'node:stream';
import type { AppContext } from './context';
import { httpError, tooLarge } from './json-body';

/**
 * The raw file body of an upload route (an import's file, docs/architecture.md §11), as a stream that fails with
 * 413 as soon as more than `limitBytes` have come: never buffered whole, so a huge file costs a chunk of memory.
 * A declared Content-Length over the limit is refused before any byte is read; a media type the route does not
 * take, 415 (the real type is then judged from the content).
 */
export function uploadBody(ctx: AppContext, mediaTypes: readonly string[], limitBytes: number): Readable {
  if (ctx.is(...mediaTypes) === false) {
    throw httpError(
      415,
      'unsupported_media_type',
      `The file must be sent with Content-Type ${mediaTypes.join(' or ')}.`,
    );
  }
  if (Number(ctx.get('Content-Length') || 0) > limitBytes) throw tooLarge(limitBytes);
  let received = 0;
  const limited = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      received += chunk.length;
      done(received > limitBytes ? tooLarge(limitBytes) : null, chunk);
    },
  });
  // A client that breaks off ends the upload's reading with its error rather than leaving it waiting.
  ctx.req.on('error', (error) => limited.destroy(error));
  return ctx.req.pipe(limited);
}
