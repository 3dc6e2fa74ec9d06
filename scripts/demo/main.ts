import path from 'node:path';
import { DemoStepFailed } from './api-client';
import { loadDemoCooperative } from './load-demo';
import { existingReport, loadedReport, type Addresses } from './report';

/**
 * `npm run demo`: loads the demo cooperative into a running `npm start`, through its API.
 *
 *   DEMO_URL              the API (default http://localhost:$PORT, PORT defaulting to 8000)
 *   DEMO_TEMPORAL_UI      the Temporal UI, for the links printed (default http://localhost:$TEMPORAL_UI_PORT, 8233)
 *   DEMO_CODE             code of the cooperative (default DEMO); one demo per code
 *   DEMO_ADMIN_USERNAME   the platform administrator (default $INITIAL_ADMIN_USERNAME, else admin)
 *   DEMO_ADMIN_PASSWORD   their password (default $INITIAL_ADMIN_PASSWORD)
 *   DATA_DIR              where the run keeps its progress, as npm start keeps its state (default .data)
 */
const signInHelp = [
  'The demo signs in as the platform administrator that npm start created on its first start.',
  'Set DEMO_ADMIN_PASSWORD to the password it printed then ("Initial administrator: admin / ..."),',
  'or start the service with INITIAL_ADMIN_PASSWORD=... on an empty .data/ and run the demo with the same variable.',
].join('\n');

function setting(...names: string[]): string | undefined {
  for (const name of names) {
    const value = process.env[name]?.trim();
    if (value !== undefined && value !== '') return value;
  }
  return undefined;
}

async function main(): Promise<number> {
  const addresses: Addresses = {
    api: (setting('DEMO_URL') ?? `http://localhost:${setting('PORT') ?? '8000'}`).replace(/\/+$/, ''),
    temporalUi: (setting('DEMO_TEMPORAL_UI') ?? `http://localhost:${setting('TEMPORAL_UI_PORT') ?? '8233'}`).replace(
      /\/+$/,
      '',
    ),
  };
  const code = setting('DEMO_CODE') ?? 'DEMO';
  if (!/^[A-Za-z0-9_-]{1,20}$/.test(code)) {
    process.stderr.write(`DEMO_CODE must be 1 to 20 letters, digits, - or _ (got "${code}").\n`);
    return 2;
  }
  const password = setting('DEMO_ADMIN_PASSWORD', 'INITIAL_ADMIN_PASSWORD');
  if (password === undefined) {
    process.stderr.write(`${signInHelp}\n`);
    return 2;
  }
  const username = setting('DEMO_ADMIN_USERNAME', 'INITIAL_ADMIN_USERNAME') ?? 'admin';
  const started = Date.now();
  try {
    const dataDir = path.resolve(setting('DATA_DIR') ?? '.data');
    const outcome = await loadDemoCooperative({
      baseUrl: addresses.api,
      admin: { username, password },
      code,
      dataDir,
      log: (line) => process.stdout.write(`  ${line}\n`),
    });
    process.stdout.write(
      outcome.kind === 'loaded'
        ? loadedReport(outcome.report, addresses, (Date.now() - started) / 1000)
        : existingReport(outcome, addresses),
    );
    return 0;
  } catch (error) {
    if (!(error instanceof DemoStepFailed)) throw error;
    process.stderr.write(`\n${error.describe()}\n`);
    if (error.step === `sign in as ${username}` && error.status === 401) process.stderr.write(`\n${signInHelp}\n`);
    return 1;
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`npm run demo: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);
