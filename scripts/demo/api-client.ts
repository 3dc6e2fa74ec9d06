/**
 * The demo's own client of the Coopbank API: plain HTTP, as any outside client would call it, so every rule,
 * posting and workflow the demo triggers is the real one. Each call names the step it serves, and a refusal
 * stops the demo with that step, the request and the problem+json answered.
 */

type Query = Record<string, string | number | boolean | undefined>;

interface CallOptions {
  token?: string;
  query?: Query;
  json?: unknown;
  /** A file's text sent as is (the import's CSV files), instead of JSON. */
  csv?: string;
  /** Money-moving POSTs: a retry with the same key moves nothing twice. */
  idempotencyKey?: string;
}

/** A step the API refused, or could not be reached for: what the demo prints before it stops. */
export class DemoStepFailed extends Error {
  constructor(
    readonly step: string,
    readonly request: string,
    readonly status: number | null,
    readonly answer: string,
  ) {
    super(`${step}: ${request} answered ${status ?? 'nothing'}`);
  }

  /** The step, the request and the answer, the problem+json indented. */
  describe(): string {
    return [
      `The demo stopped at: ${this.step}`,
      `  ${this.request} -> ${this.status ?? 'no answer'}`,
      indent(prettyJson(this.answer)),
    ].join('\n');
  }
}

function prettyJson(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');

export class CoopbankApi {
  constructor(readonly baseUrl: string) {}

  async call<T>(step: string, method: string, path: string, options: CallOptions = {}): Promise<T> {
    const url = new URL(path, this.baseUrl);
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) url.searchParams.set(name, String(value));
    const headers: Record<string, string> = { accept: 'application/json' };
    if (options.token !== undefined) headers.authorization = `Bearer ${options.token}`;
    if (options.idempotencyKey !== undefined) headers['idempotency-key'] = options.idempotencyKey;
    if (options.json !== undefined) headers['content-type'] = 'application/json';
    if (options.csv !== undefined) headers['content-type'] = 'text/csv';
    const request = `${method} ${url.pathname}${url.search}`;
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.csv ?? (options.json === undefined ? undefined : JSON.stringify(options.json)),
      });
    } catch (error) {
      const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : String(error);
      throw new DemoStepFailed(
        step,
        request,
        null,
        `Nothing answers at ${this.baseUrl} (${cause}): start the service with npm start, or set DEMO_URL.`,
      );
    }
    const text = await response.text();
    if (!response.ok) throw new DemoStepFailed(step, request, response.status, text);
    return (text === '' ? undefined : JSON.parse(text)) as T;
  }

  /** Signs in with the JSON token endpoint (`POST /api/v1/token/`): a Bearer session for scripts. */
  async signIn(username: string, password: string): Promise<Session> {
    const tokens = await this.call<{ access: string }>(`sign in as ${username}`, 'POST', '/api/v1/token/', {
      json: { username, password },
    });
    return new Session(this, username, tokens.access);
  }
}

/** One signed-in user: every call carries their token, so the API checks their roles. */
export class Session {
  constructor(
    private readonly api: CoopbankApi,
    readonly username: string,
    private readonly token: string,
  ) {}

  get<T>(step: string, path: string, query?: Query): Promise<T> {
    return this.api.call<T>(step, 'GET', path, { token: this.token, query });
  }

  post<T>(step: string, path: string, json: unknown, idempotencyKey?: string): Promise<T> {
    return this.api.call<T>(step, 'POST', path, { token: this.token, json, idempotencyKey });
  }

  patch<T>(step: string, path: string, json: unknown): Promise<T> {
    return this.api.call<T>(step, 'PATCH', path, { token: this.token, json });
  }

  putCsv<T>(step: string, path: string, csv: string): Promise<T> {
    return this.api.call<T>(step, 'PUT', path, { token: this.token, csv });
  }
}

/** A page of a list endpoint. */
export interface Page<T> {
  count: number;
  results: T[];
}
