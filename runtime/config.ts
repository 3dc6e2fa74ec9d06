import { isIP } from 'node:net';
import path from 'node:path';
import { defaultTaskQueue } from '../workflows/identities';
import { importFileLimitDefault } from '../domain/imports/files';

/**
 * The one typed configuration of every process, read from the environment.
 * Unset variables take local-development defaults; an invalid value throws a ConfigError that names the
 * variable, and the process entry points print that one message and exit non-zero.
 */
export interface Config {
  nodeEnv: 'development' | 'test' | 'production';
  /** Unset: the all-in-one start runs an embedded PostgreSQL in `dataDir/pg`. */
  databaseUrl: string | undefined;
  /** Unset: the all-in-one start runs a local Temporal dev server. */
  temporalAddress: string | undefined;
  temporalNamespace: string;
  temporalTaskQueue: string;
  port: number;
  /**
   * The address the API binds: the loopback by default, so that a development start is not reachable from
   * the network; a container sets 0.0.0.0 (Dockerfile), behind its published port.
   */
  host: string;
  /** Ports of the local services the all-in-one start runs when DATABASE_URL / TEMPORAL_ADDRESS are unset. */
  embeddedPostgresPort: number;
  temporalDevPort: number;
  temporalUiPort: number;
  /** Absolute path of the folder holding local state (PostgreSQL data, Temporal SQLite file, JWT secret). */
  dataDir: string;
  /** Unset outside production: generated once and kept in `dataDir` (see jwt-secret.ts). */
  jwtSecret: string | undefined;
  /** Lifetimes of access and refresh tokens, in seconds, and the absolute lifetime of a sign-in they never outlive. */
  accessTokenTtlSeconds: number;
  refreshTokenTtlSeconds: number;
  sessionTtlSeconds: number;
  /** The first administrator, created on first start when no user exists (password generated if unset). */
  initialAdminUsername: string;
  initialAdminPassword: string | undefined;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-* (client address for throttling, https for cookies). */
  trustProxy: boolean;
  /** How many proxies in front append to X-Forwarded-For: the client address is the one the outermost of them saw. */
  trustedProxyHops: number;
  /** Session cookies without Secure: local development over plain HTTP only. */
  insecureCookies: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number;
  importFileLimitBytes: number;
  /** Bearer token that reads /metrics; unset: one kept in DATA_DIR outside production, metrics off in production. */
  metricsToken: string | undefined;
  /**
   * `ip:port` where a worker serves its Prometheus metrics (the Temporal SDK's and the process's own), without a
   * token: bind it to an address only the monitoring network reaches. Unset: no worker metrics.
   */
  workerMetricsAddress: string | undefined;
  /** The commit the running code was built from, a label of coopbank_build_info; set by the build (Dockerfile). */
  gitCommit: string | undefined;
  /**
   * Length of a day for the workflows' timers (notice periods, refund deadlines), in ms; shorter only outside
   * production.
   */
  workflowDayMs: number;
  /**
   * Tests only (NODE_ENV=test): the instant the process's clock starts at, ticking from there, so that an API or
   * worker a test starts shares the test's "now" (test/helpers/clock.ts). Unset: the real clock.
   */
  clockStart: Date | undefined;
  /**
   * A workflow bundle built beforehand (`bundleWorkflowCode`), which the worker loads instead of bundling the
   * workflows at start (seconds of CPU); it must come from the same code. Unset: bundled at start.
   */
  workflowBundlePath: string | undefined;
  /**
   * The process's database pool (db/knex.ts): its size, the longest wait for a connection, statement_timeout (0: none).
   */
  databasePool: { poolMax: number; acquireTimeoutMs: number; statementTimeoutMs: number };
}

export class ConfigError extends Error {
  constructor(
    readonly variable: string,
    problem: string,
  ) {
    super(`Invalid configuration: ${variable} ${problem}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;

const nodeEnvs = ['development', 'test', 'production'] as const;
const logLevels = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
const jwtSecretLengthMin = 32;
const metricsTokenLengthMin = 24;
const dayMs = 86_400_000;

export function loadConfig(env: Env = process.env, cwd: string = process.cwd()): Config {
  const nodeEnv = oneOf(env, 'NODE_ENV', nodeEnvs, 'development');
  const config: Config = {
    nodeEnv,
    databaseUrl: optionalUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    temporalAddress: optionalHostPort(env, 'TEMPORAL_ADDRESS'),
    temporalNamespace: identifier(env, 'TEMPORAL_NAMESPACE', 'default'),
    temporalTaskQueue: identifier(env, 'TEMPORAL_TASK_QUEUE', defaultTaskQueue),
    port: integer(env, 'PORT', 8000, 0, 65535),
    host: ipAddress(env, 'HOST', '127.0.0.1'),
    embeddedPostgresPort: integer(env, 'EMBEDDED_PG_PORT', 54320, 1, 65535),
    temporalDevPort: integer(env, 'TEMPORAL_DEV_PORT', 7233, 1, 65535),
    temporalUiPort: integer(env, 'TEMPORAL_UI_PORT', 8233, 1, 65535),
    dataDir: path.resolve(cwd, nonEmpty(env, 'DATA_DIR') ?? '.data'),
    jwtSecret: optionalSecret(env, 'JWT_SECRET', jwtSecretLengthMin),
    accessTokenTtlSeconds: integer(env, 'ACCESS_TOKEN_MINUTES', 60, 1, 60) * 60,
    refreshTokenTtlSeconds: integer(env, 'REFRESH_TOKEN_HOURS', 24, 1, 24 * 30) * 3600,
    sessionTtlSeconds: integer(env, 'SESSION_MAX_HOURS', 24 * 7, 1, 24 * 30) * 3600,
    initialAdminUsername: identifier(env, 'INITIAL_ADMIN_USERNAME', 'admin').toLowerCase(),
    initialAdminPassword: nonEmpty(env, 'INITIAL_ADMIN_PASSWORD'),
    trustProxy: oneOf(env, 'TRUST_PROXY', ['true', 'false'], 'false') === 'true',
    trustedProxyHops: integer(env, 'TRUSTED_PROXY_HOPS', 1, 1, 10),
    insecureCookies: oneOf(env, 'INSECURE_COOKIES', ['true', 'false'], 'false') === 'true',
    logLevel: oneOf(env, 'LOG_LEVEL', logLevels, nodeEnv === 'test' ? 'silent' : 'info'),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1024 * 1024, 1024, 100 * 1024 * 1024),
    importFileLimitBytes: integer(env, 'IMPORT_FILE_LIMIT_BYTES', importFileLimitDefault, 1024, 1024 * 1024 * 1024),
    workflowDayMs: integer(env, 'WORKFLOW_DAY_MS', dayMs, 1, dayMs),
    clockStart: optionalInstant(env, 'CLOCK_START'),
    metricsToken: optionalSecret(env, 'METRICS_TOKEN', metricsTokenLengthMin),
    workerMetricsAddress: optionalSocketAddress(env, 'WORKER_METRICS_ADDRESS'),
    gitCommit: optionalCommit(env, 'GIT_COMMIT'),
    workflowBundlePath: optionalPath(env, 'WORKFLOW_BUNDLE_PATH', cwd),
    databasePool: {
      poolMax: integer(env, 'DATABASE_POOL_MAX', 10, 1, 1000),
      acquireTimeoutMs: integer(env, 'DATABASE_ACQUIRE_TIMEOUT_MS', 5000, 100, 600_000),
      statementTimeoutMs: integer(env, 'DATABASE_STATEMENT_TIMEOUT_MS', 30_000, 0, 3_600_000),
    },
  };
  if (config.refreshTokenTtlSeconds > config.sessionTtlSeconds)
    throw new ConfigError('REFRESH_TOKEN_HOURS', 'must not exceed SESSION_MAX_HOURS');
  // A moved clock would date real operations wrongly: only tests may move it.
  if (config.clockStart !== undefined && nodeEnv !== 'test')
    throw new ConfigError('CLOCK_START', 'is for tests only (NODE_ENV=test)');
  if (config.insecureCookies && nodeEnv !== 'development')
    throw new ConfigError('INSECURE_COOKIES', 'is for local development over plain HTTP only (NODE_ENV=development)');
  if (nodeEnv === 'production') {
    // In production nothing is embedded and no secret is invented: each must be given.
    for (const [variable, value] of [
      ['DATABASE_URL', config.databaseUrl],
      ['TEMPORAL_ADDRESS', config.temporalAddress],
      ['JWT_SECRET', config.jwtSecret],
    ] as const) {
      if (value === undefined) throw new ConfigError(variable, 'is required when NODE_ENV=production');
    }
    // A shortened day would end members' notice periods and refund deadlines early.
    if (config.workflowDayMs !== dayMs)
      throw new ConfigError('WORKFLOW_DAY_MS', `must be ${dayMs} (a real day) when NODE_ENV=production`);
  }
  return config;
}

function nonEmpty(env: Env, variable: string): string | undefined {
  const value = env[variable]?.trim();
  return value === undefined || value === '' ? undefined : value;
}

function oneOf<T extends string>(env: Env, variable: string, allowed: readonly T[], fallback: T): T {
  const value = nonEmpty(env, variable);
  if (value === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(value)) {
    throw new ConfigError(variable, `must be one of ${allowed.join(', ')} (got "${value}")`);
  }
  return value as T;
}

function integer(env: Env, variable: string, fallback: number, min: number, max: number): number {
  const value = nonEmpty(env, variable);
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
    throw new ConfigError(variable, `must be an integer from ${min} to ${max} (got "${value}")`);
  }
  return Number(value);
}

function identifier(env: Env, variable: string, fallback: string): string {
  const value = nonEmpty(env, variable) ?? fallback;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$/.test(value)) {
    throw new ConfigError(variable, `must be letters, digits, '.', '_' or '-' (got "${value}")`);
  }
  return value;
}

function optionalUrl(env: Env, variable: string, protocols: string[]): string | undefined {
  const value = nonEmpty(env, variable);
  if (value === undefined) return undefined;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new ConfigError(variable, 'is not a valid URL (expected postgres://user:password@host:port/database)');
  }
  if (!protocols.includes(url.protocol) || url.hostname === '' || url.pathname.length <= 1) {
    throw new ConfigError(variable, 'must look like postgres://user:password@host:port/database');
  }
  return value;
}

function optionalHostPort(env: Env, variable: string): string | undefined {
  const value = nonEmpty(env, variable);
  if (value === undefined) return undefined;
  const match = /^([A-Za-z0-9.-]+|\[[0-9a-fA-F:]+\]):(\d{1,5})$/.exec(value);
  if (match === null || Number(match[2]) < 1 || Number(match[2]) > 65535) {
    throw new ConfigError(variable, `must be host:port, e.g. localhost:7233 (got "${value}")`);
  }
  return value;
}

/** An IP address, not a host name: the address to bind is then exactly the one configured. */
function ipAddress(env: Env, variable: string, fallback: string): string {
  const value = nonEmpty(env, variable) ?? fallback;
  if (isIP(value) === 0)
    throw new ConfigError(variable, `must be an IP address, e.g. 127.0.0.1, 0.0.0.0 or :: (got "${value}")`);
  return value;
}

/** An IP address and a port: the Temporal SDK's exporter binds exactly that and resolves no host name. */
function optionalSocketAddress(env: Env, variable: string): string | undefined {
  const value = nonEmpty(env, variable);
  if (value === undefined) return undefined;
  const { v6, v4, port } = /^(?:\[(?<v6>[^\]]+)\]|(?<v4>[\d.]+)):(?<port>\d{1,5})$/.exec(value)?.groups ?? {};
  const ipValid = isIP(v6 ?? '') === 6 || isIP(v4 ?? '') === 4;
  if (!ipValid || Number(port) < 1 || Number(port) > 65535) {
    throw new ConfigError(
      variable,
      `must be ip:port, e.g. 0.0.0.0:9464 or [::]:9464, not a host name (got "${value}")`,
    );
  }
  return value;
}

function optionalCommit(env: Env, variable: string): string | undefined {
  const value = nonEmpty(env, variable);
  if (value !== undefined && !/^[0-9a-f]{7,64}$/i.test(value))
    throw new ConfigError(variable, `must be a commit hash, 7 to 64 hexadecimal digits (got "${value}")`);
  return value;
}

function optionalInstant(env: Env, variable: string): Date | undefined {
  const value = nonEmpty(env, variable);
  if (value === undefined) return undefined;
  const instant = new Date(value);
  const wellFormed =
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/.test(value) && !Number.isNaN(instant.getTime());
  // Date reads 2026-02-30 as March 2: the instant must write back as given.
  if (!wellFormed || instant.toISOString().slice(0, 19) !== value.slice(0, 19)) {
    throw new ConfigError(variable, `must be a UTC instant, e.g. 2026-11-26T10:00:00Z (got "${value}")`);
  }
  return instant;
}

function optionalPath(env: Env, variable: string, cwd: string): string | undefined {
  const value = nonEmpty(env, variable);
  return value === undefined ? undefined : path.resolve(cwd, value);
}

function optionalSecret(env: Env, variable: string, lengthMin: number): string | undefined {
  const value = nonEmpty(env, variable);
  if (value !== undefined && value.length < lengthMin) {
    throw new ConfigError(variable, `must be at least ${lengthMin} characters long`);
  }
  return value;
}

/**
 * The production processes (`npm run api`, `npm run worker`) embed nothing: they need both services given.
 * Returns the config with those two known to be set.
 */
export function requireExternalServices(
  config: Config,
  command: string,
): Config & { databaseUrl: string; temporalAddress: string } {
  const { databaseUrl, temporalAddress } = config;
  if (databaseUrl === undefined)
    throw new ConfigError('DATABASE_URL', `is required by ${command} (npm start embeds one)`);
  if (temporalAddress === undefined)
    throw new ConfigError('TEMPORAL_ADDRESS', `is required by ${command} (npm start embeds one)`);
  return { ...config, databaseUrl, temporalAddress };
}
