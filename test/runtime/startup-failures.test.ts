import { execFile } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { createTestDatabase } from '../helpers/database';
import { testEnvironment } from '../helpers/environment';

const root = path.join(__dirname, '..', '..');

interface Outcome {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a process entry point the way npm does, with only the given variables on top of a clean base. */
function run(command: string, args: string[], env: Record<string, string>): Promise<Outcome> {
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { cwd: root, env: { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr });
      },
    );
  });
}

const runApi = (env: Record<string, string>) =>
  run(process.execPath, ['--import', 'tsx', 'runtime/api-main.ts'], { LOG_LEVEL: 'silent', ...env });

function assertOneClearLine(t: import('ava').ExecutionContext, outcome: Outcome, pattern: RegExp): void {
  t.is(outcome.code, 1);
  const lines = outcome.stderr.trim().split('\n');
  t.is(lines.length, 1, `expected one line, got:\n${outcome.stderr}`);
  t.regex(lines[0]!, pattern);
  t.notRegex(outcome.stderr, /^\s+at /m, 'no stack trace');
}

test('an invalid variable stops the process with one line naming it', async (t) => {
  assertOneClearLine(
    t,
    await runApi({ PORT: 'eighty' }),
    /^coopbank api: Invalid configuration: PORT must be an integer/,
  );
});

test('the production API refuses to start without DATABASE_URL', async (t) => {
  assertOneClearLine(
    t,
    await runApi({ TEMPORAL_ADDRESS: '127.0.0.1:7233' }),
    /^coopbank api: Invalid configuration: DATABASE_URL is required/,
  );
});

test('an unreachable database is named, without its password', async (t) => {
  const outcome = await runApi({
    DATABASE_URL: 'postgres://app:hunter2@127.0.0.1:1/coopbank',
    TEMPORAL_ADDRESS: '127.0.0.1:1',
  });
  assertOneClearLine(
    t,
    outcome,
    /^coopbank api: Cannot use the database at postgres:\/\/app:\*\*\*@127\.0\.0\.1:1\/coopbank: /,
  );
  t.false(outcome.stderr.includes('hunter2'));
});

test('an unreachable Temporal is named', async (t) => {
  const { url } = await createTestDatabase(t);
  assertOneClearLine(
    t,
    await runApi({ DATABASE_URL: url, TEMPORAL_ADDRESS: '127.0.0.1:1' }),
    /^coopbank api: Cannot reach Temporal at 127\.0\.0\.1:1/,
  );
});

test('a port in use is named', async (t) => {
  const { url } = await createTestDatabase(t);
  const blocker = net.createServer();
  await new Promise<void>((resolve) => blocker.listen(0, resolve));
  t.teardown(() => new Promise<void>((resolve) => blocker.close(() => resolve())));
  const port = (blocker.address() as net.AddressInfo).port;
  const outcome = await runApi({
    DATABASE_URL: url,
    TEMPORAL_ADDRESS: testEnvironment().temporalAddress,
    PORT: String(port),
  });
  assertOneClearLine(
    t,
    outcome,
    new RegExp(`^coopbank api: Port ${port} is already in use: set PORT to a free port\\.$`),
  );
});

test('ensure-temporal without a CLI and without Go says so and exits non-zero', async (t) => {
  const emptyBin = fs.mkdtempSync(path.join(os.tmpdir(), 'no-go-'));
  t.teardown(() => fs.rmSync(emptyBin, { recursive: true }));
  fs.symlinkSync('/bin/bash', path.join(emptyBin, 'bash'));
  fs.symlinkSync(process.execPath, path.join(emptyBin, 'node'));
  const outcome = await run('/bin/bash', ['scripts/ensure-temporal'], {
    PATH: `${emptyBin}:/nonexistent`,
    HOME: emptyBin,
  });
  t.is(outcome.code, 1);
  t.is(outcome.stdout, '');
  t.regex(outcome.stderr, /no temporal CLI found and Go is not installed/);
});

test('ensure-temporal refuses a TEMPORAL_CLI_PATH that is not an executable', async (t) => {
  const outcome = await run('/bin/bash', ['scripts/ensure-temporal'], { TEMPORAL_CLI_PATH: '/nonexistent/temporal' });
  t.is(outcome.code, 1);
  t.regex(outcome.stderr, /TEMPORAL_CLI_PATH=\/nonexistent\/temporal is not an executable file/);
});
