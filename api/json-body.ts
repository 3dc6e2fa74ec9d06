import type { AppContext } from './context';

export function httpError(status: number, code: string, message: string): Error {
  return Object.assign(new Error(message), { status, code, expose: true });
}

/**
 * Reads the JSON body of a request whose route declares one: refuses more than `limitBytes` (413),
 * anything but JSON (415) and malformed JSON (400); an absent body reads as `{}` so that the route's schema
 * reports each missing field. The body is streamed and abandoned as soon as the limit is passed, so an
 * oversized upload costs no more memory than the limit.
 */
export async function readJsonBody(ctx: AppContext, limitBytes: number): Promise<unknown> {
  if (!hasBody(ctx.get('Content-Length'), ctx.get('Transfer-Encoding'))) return {};
  if (!ctx.is('application/json', 'application/*+json')) {
    throw httpError(415, 'unsupported_media_type', 'Request bodies must be JSON (Content-Type: application/json).');
  }
  const declaredLength = Number(ctx.get('Content-Length') || 0);
  if (declaredLength > limitBytes) throw tooLarge(limitBytes);
  const text = await readLimited(ctx.req, limitBytes);
  if (text.trim() === '') return {};
  if (nestingDepth(text) > maxNesting)
    throw httpError(
      400,
      'too_deeply_nested',
      `The request body nests arrays and objects more than ${maxNesting} levels deep.`,
    );
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw httpError(400, 'malformed_json', `The request body is not valid JSON: ${(error as Error).message}`);
  }
}

function hasBody(contentLength: string, transferEncoding: string): boolean {
  return transferEncoding !== '' || (contentLength !== '' && contentLength !== '0');
}

/** No request of the API nests deeper; a deeper body is refused before it is parsed (or its error message built). */
const maxNesting = 32;

/**
 * The deepest nesting of arrays and objects in a JSON text, counted outside strings, in one pass without
 * recursion: a 300 000-deep array costs a loop, not a stack.
 */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (inString) {
      if (char === '\\') index += 1;
      else if (char === '"') inString = false;
    } else if (char === '"') inString = true;
    else if (char === '[' || char === '{') deepest = Math.max(deepest, (depth += 1));
    else if (char === ']' || char === '}') depth -= 1;
  }
  return deepest;
}

/**
 * A 413 closes the connection: the rest of the body is never read, so the next request on the same connection
 * would otherwise wait behind it.
 */
export function tooLarge(limitBytes: number): Error {
  return Object.assign(
    httpError(413, 'payload_too_large', `The request body exceeds the limit of ${limitBytes} bytes.`),
    { headers: { Connection: 'close' } },
  );
}

async function readLimited(stream: NodeJS.ReadableStream, limitBytes: number): Promise<string> {
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of stream) {
    const buffer = typeof chunk === 'string' ? Buffer.from(chunk) : (chunk as Buffer);
    received += buffer.length;
    if (received > limitBytes) throw tooLarge(limitBytes);
    chunks.push(buffer);
  }
  try {
    return utf8.decode(Buffer.concat(chunks));
  } catch {
    throw httpError(400, 'malformed_json', 'The request body is not valid UTF-8.');
  }
}

/** Fatal: an invalid byte sequence is refused, where Buffer.toString would store U+FFFD in its place. */
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
