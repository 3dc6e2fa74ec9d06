import path from 'node:path';
import test from 'ava';
import { ConfigError, loadConfig } from '../../runtime/config';

const cwd = '/srv/coopbank';

test('an empty environment gives the local defaults', (t) => {
  const config = loadConfig({}, cwd);
  t.is(config.nodeEnv, 'development');
  t.is(config.databaseUrl, undefined);
  t.is(config.temporalAddress, undefined);
  t.is(config.temporalNamespace, 'default');
  t.is(config.temporalTaskQueue, 'coopbank');
  t.is(config.port, 8000);
  t.is(config.host, '127.0.0.1', 'a development start must not be reachable from the network');
  t.is(config.dataDir, path.join(cwd, '.data'));
  t.is(config.jwtSecret, undefined);
  t.is(config.logLevel, 'info');
});

test('valid values are read and converted', (t) => {
  const config = loadConfig(
    {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://app:secret@db.internal:5432/coopbank',
      TEMPORAL_ADDRESS: 'temporal.internal:7233',
      TEMPORAL_NAMESPACE: 'coop-prod',
      TEMPORAL_TASK_QUEUE: 'coopbank-main',
      PORT: '9000',
      HOST: '0.0.0.0',
      DATA_DIR: '/var/lib/coopbank',
      JWT_SECRET: 'x'.repeat(40),
      LOG_LEVEL: 'warn',
    },
    cwd,
  );
  t.is(config.port, 9000);
  t.is(config.host, '0.0.0.0');
  t.is(config.temporalAddress, 'temporal.internal:7233');
  t.is(config.dataDir, '/var/lib/coopbank');
  t.is(config.logLevel, 'warn');
});

const invalid: [string, Record<string, string>][] = [
  ['PORT', { PORT: 'eighty' }],
  ['PORT', { PORT: '70000' }],
  ['PORT', { PORT: '-1' }],
  ['HOST', { HOST: 'example.org' }],
  ['HOST', { HOST: '0.0.0.0:8000' }],
  ['DATABASE_URL', { DATABASE_URL: 'not a url' }],
  ['DATABASE_URL', { DATABASE_URL: 'mysql://u:p@h/db' }],
  ['DATABASE_URL', { DATABASE_URL: 'postgres://u:p@host' }],
  ['TEMPORAL_ADDRESS', { TEMPORAL_ADDRESS: 'http://temporal:7233' }],
  ['TEMPORAL_ADDRESS', { TEMPORAL_ADDRESS: 'temporal' }],
  ['TEMPORAL_NAMESPACE', { TEMPORAL_NAMESPACE: 'has spaces' }],
  ['TEMPORAL_TASK_QUEUE', { TEMPORAL_TASK_QUEUE: 'a/b' }],
  ['NODE_ENV', { NODE_ENV: 'staging' }],
  ['LOG_LEVEL', { LOG_LEVEL: 'loud' }],
  ['JWT_SECRET', { JWT_SECRET: 'short' }],
  ['BODY_LIMIT_BYTES', { BODY_LIMIT_BYTES: '10' }],
  ['WORKFLOW_DAY_MS', { WORKFLOW_DAY_MS: '0' }],
  ['ACCESS_TOKEN_MINUTES', { ACCESS_TOKEN_MINUTES: '61' }],
  ['REFRESH_TOKEN_HOURS', { REFRESH_TOKEN_HOURS: '200' }],
  ['SESSION_MAX_HOURS', { SESSION_MAX_HOURS: '721' }],
  ['TRUSTED_PROXY_HOPS', { TRUSTED_PROXY_HOPS: '0' }],
  ['INSECURE_COOKIES', { INSECURE_COOKIES: 'true', NODE_ENV: 'test' }],
  ['WORKFLOW_DAY_MS', { WORKFLOW_DAY_MS: '86400001' }],
  ['WORKER_METRICS_ADDRESS', { WORKER_METRICS_ADDRESS: 'localhost:9464' }],
  ['WORKER_METRICS_ADDRESS', { WORKER_METRICS_ADDRESS: '0.0.0.0' }],
  ['WORKER_METRICS_ADDRESS', { WORKER_METRICS_ADDRESS: '[1.2.3.4]:9464' }],
  ['WORKER_METRICS_ADDRESS', { WORKER_METRICS_ADDRESS: '0.0.0.0:0' }],
  ['GIT_COMMIT', { GIT_COMMIT: 'main' }],
];

for (const [variable, env] of invalid) {
  test(`${variable}=${Object.values(env)[0]} is refused with a message naming ${variable}`, (t) => {
    const error = t.throws(() => loadConfig(env, cwd), { instanceOf: ConfigError });
    t.is(error?.variable, variable);
    t.true(error?.message.startsWith(`Invalid configuration: ${variable} `));
  });
}

for (const variable of ['DATABASE_URL', 'TEMPORAL_ADDRESS', 'JWT_SECRET']) {
  test(`production requires ${variable}: nothing is embedded or invented there`, (t) => {
    const env: Record<string, string> = {
      NODE_ENV: 'production',
      DATABASE_URL: 'postgres://app:secret@db:5432/coopbank',
      TEMPORAL_ADDRESS: 'temporal:7233',
      JWT_SECRET: 'y'.repeat(32),
    };
    delete env[variable];
    const error = t.throws(() => loadConfig(env, cwd), { instanceOf: ConfigError });
    t.is(error?.variable, variable);
  });
}

test('worker metrics are off unless an ip:port is given; the commit is a hash', (t) => {
  t.is(loadConfig({}, cwd).workerMetricsAddress, undefined);
  t.is(loadConfig({ WORKER_METRICS_ADDRESS: '0.0.0.0:9464' }, cwd).workerMetricsAddress, '0.0.0.0:9464');
  t.is(loadConfig({ WORKER_METRICS_ADDRESS: '[::]:9464' }, cwd).workerMetricsAddress, '[::]:9464');
  t.is(loadConfig({ GIT_COMMIT: '561c00b' }, cwd).gitCommit, '561c00b');
});

test('a prebuilt workflow bundle is optional, its path taken from the working directory', (t) => {
  t.is(loadConfig({}, cwd).workflowBundlePath, undefined);
  t.is(
    loadConfig({ WORKFLOW_BUNDLE_PATH: 'build/workflows.js' }, cwd).workflowBundlePath,
    '/srv/coopbank/build/workflows.js',
  );
});

test('a shortened workflow day is for tests and demos: production refuses it, development takes it', (t) => {
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://app:secret@db:5432/coopbank',
    TEMPORAL_ADDRESS: 'temporal:7233',
    JWT_SECRET: 'y'.repeat(32),
  };
  t.is(loadConfig(production, cwd).workflowDayMs, 86_400_000);
  t.is(
    t.throws(() => loadConfig({ ...production, WORKFLOW_DAY_MS: '1000' }, cwd), { instanceOf: ConfigError })?.variable,
    'WORKFLOW_DAY_MS',
  );
  t.is(loadConfig({ WORKFLOW_DAY_MS: '1000' }, cwd).workflowDayMs, 1000);
});

test('a moved clock is for tests only: CLOCK_START is read under NODE_ENV=test and refused elsewhere', (t) => {
  t.is(loadConfig({}, cwd).clockStart, undefined);
  t.deepEqual(
    loadConfig({ NODE_ENV: 'test', CLOCK_START: '2026-11-26T10:00:00Z' }, cwd).clockStart,
    new Date('2026-11-26T10:00:00Z'),
  );
  const production = {
    NODE_ENV: 'production',
    DATABASE_URL: 'postgres://app:secret@db:5432/coopbank',
    TEMPORAL_ADDRESS: 'temporal:7233',
    JWT_SECRET: 'y'.repeat(32),
  };
  for (const env of [
    { ...production, CLOCK_START: '2026-11-26T10:00:00Z' },
    { CLOCK_START: '2026-11-26T10:00:00Z' },
    { NODE_ENV: 'test', CLOCK_START: '2026-11-26' },
    { NODE_ENV: 'test', CLOCK_START: '2026-02-30T10:00:00Z' },
  ]) {
    t.is(
      t.throws(() => loadConfig(env, cwd), { instanceOf: ConfigError })?.variable,
      'CLOCK_START',
      JSON.stringify(env),
    );
  }
});
