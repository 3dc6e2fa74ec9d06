/** How the test runner (test/run.ts) tells each ava process where the shared services are. */
export const templateDatabase = 'coopbank_template';

const variables = {
  postgresUrl: 'COOPBANK_TEST_POSTGRES_URL',
  temporalAddress: 'COOPBANK_TEST_TEMPORAL_ADDRESS',
  bundlePath: 'COOPBANK_TEST_WORKFLOW_BUNDLE',
  timingsFile: 'COOPBANK_TEST_TIMINGS',
} as const;

export type TestEnvironment = Record<keyof typeof variables, string>;

export function testEnvironmentVariables(environment: TestEnvironment): Record<string, string> {
  return {
    NODE_ENV: 'test',
    [variables.postgresUrl]: environment.postgresUrl,
    [variables.temporalAddress]: environment.temporalAddress,
    [variables.bundlePath]: environment.bundlePath,
    [variables.timingsFile]: environment.timingsFile,
  };
}

/** Where each test file's process appends its wall time (test/helpers/file-timing.ts); unset outside npm test. */
export const testTimingsFile = (): string | undefined => process.env[variables.timingsFile];

export function testEnvironment(): TestEnvironment {
  const read = (variable: string): string => {
    const value = process.env[variable];
    if (value === undefined) throw new Error(`${variable} is not set: run the tests with npm test (see test/run.ts).`);
    return value;
  };
  return {
    postgresUrl: read(variables.postgresUrl),
    temporalAddress: read(variables.temporalAddress),
    bundlePath: read(variables.bundlePath),
    timingsFile: read(variables.timingsFile),
  };
}
