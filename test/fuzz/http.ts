import http from 'node:http';

/** A request exactly as the fuzzer means it: fetch would normalise or refuse some of these on its own. */
export interface RawRequest {
  method: string;
  /** Path and query string, already percent-encoded as they go on the wire. */
  target: string;
  headers: Record<string, string>;
  body?: string;
  /** Sent without Content-Length (chunked), so the server must count as it reads. */
  chunked?: boolean;
}

export interface RawResponse {
  status: number;
  contentType: string;
  text: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
const answerTimeoutMs = 15_000;

/**
 * Sends one request and reads the whole answer. A server may answer before it has read the body (413) and
 * close the connection: the answer counts, the write error that follows does not. No answer at all (a
 * closed connection, or silence for 15 s) rejects.
 */
export function send(baseUrl: string, request: RawRequest): Promise<RawResponse> {
  const url = new URL(baseUrl);
  const headers = { ...request.headers };
  if (request.body !== undefined && !request.chunked)
    headers['content-length'] = String(Buffer.byteLength(request.body));
  return new Promise((resolve, reject) => {
    let answered = false;
    const outgoing = http.request(
      { host: url.hostname, port: url.port, method: request.method, path: request.target, headers, agent },
      (incoming) => {
        answered = true;
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('error', reject);
        incoming.on('end', () =>
          resolve({
            status: incoming.statusCode ?? 0,
            contentType: incoming.headers['content-type'] ?? '',
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      },
    );
    outgoing.on('error', (error) => {
      if (!answered) reject(error);
    });
    // A request the server never answers is a finding, not a reason for the whole run to hang.
    outgoing.setTimeout(answerTimeoutMs, () =>
      outgoing.destroy(new Error(`no answer within ${answerTimeoutMs / 1000} s`)),
    );
    outgoing.end(request.body);
  });
}

export const closeConnections = (): void => agent.destroy();
