import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';

const script = path.join(__dirname, '..', '..', 'scripts', 'ensure-chromium');

function run(env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile('/bin/bash', [script], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** A PATH of only the given commands (bash to run the script; `id` answering a user that is not root). */
function binFolder(t: import('ava').ExecutionContext, commands: Record<string, string>): string {
  const bin = fs.mkdtempSync(path.join(os.tmpdir(), 'no-chromium-'));
  t.teardown(() => fs.rmSync(bin, { recursive: true }));
  fs.symlinkSync('/bin/bash', path.join(bin, 'bash'));
  for (const [name, body] of Object.entries(commands))
    fs.writeFileSync(path.join(bin, name), `#!/bin/bash\n${body}\n`, { mode: 0o755 });
  return bin;
}

test(
  'without Chromium and without the right to install ' + 'it, it stops at once with the one command to run',
  async (t) => {
    const bin = binFolder(t, { id: 'echo 1000', 'apt-get': 'echo "apt-get must not run" >&2; exit 3' });
    const outcome = await run({ PATH: bin });
    t.is(outcome.code, 1);
    t.is(outcome.stdout, '');
    t.regex(outcome.stderr, /sudo apt-get update && sudo apt-get install -y chromium/);
    t.notRegex(outcome.stderr, /must not run/);
  },
);

test('as root with apt-get, it installs Chromium (update, then install -y chromium) and prints its path', async (t) => {
  // A stand-in apt-get that records its calls and "installs" a chromium into the PATH.
  const bin = binFolder(t, { id: 'echo 0' });
  fs.symlinkSync('/bin/chmod', path.join(bin, 'chmod'));
  fs.writeFileSync(
    path.join(bin, 'apt-get'),
    `#!/bin/bash\necho "$*" >> ${bin}/calls\n` +
      `if [ "$1" = install ]; then printf '#!/bin/bash\\n' > ${bin}/chromium; chmod +x ${bin}/chromium; fi\n`,
    { mode: 0o755 },
  );
  const outcome = await run({ PATH: bin });
  t.is(outcome.code, 0, outcome.stderr);
  t.is(outcome.stdout.trim(), path.join(bin, 'chromium'));
  t.deepEqual(fs.readFileSync(path.join(bin, 'calls'), 'utf8').trim().split('\n'), [
    'update -qq',
    'install -y -qq chromium',
  ]);
});

test('a CHROMIUM_PATH that is not an executable is refused', async (t) => {
  const outcome = await run({ PATH: '/usr/bin:/bin', CHROMIUM_PATH: '/nonexistent/chromium' });
  t.is(outcome.code, 1);
  t.regex(outcome.stderr, /CHROMIUM_PATH=\/nonexistent\/chromium is not an executable file/);
});
