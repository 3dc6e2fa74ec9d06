import { serveOnLoopback } from './loopback';

/**
 * The baseline: plain Node `http` answering every request with the same JSON as GET /healthz,
 * with no routing, middleware, logging or metrics. What Node itself costs per request on this machine.
 */
const body = JSON.stringify({ status: 'ok' });
const length = String(Buffer.byteLength(body));

void serveOnLoopback((_request, response) => {
  response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': length });
  response.end(body);
});
