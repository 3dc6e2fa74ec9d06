import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { ensureTemporalCli } from '../../runtime/temporal-dev-server';
import { testEnvironment } from '../helpers/environment';
import { freePort } from '../helpers/ports';
import { until } from '../helpers/until';

const root = path.join(__dirname, '..', '..');
// A tsx start with a fresh PostgreSQL cluster (initdb) and Temporal: tens of seconds on a loaded machine.
const startTimeoutMs = 150_000;
const stopTimeoutMs = 45_000;

interface Started {
  npm: number;
  dataDir: string;
  ports: number[];
  /** Every process under npm once healthy: node, PostgreSQL and its workers, Temporal, the watchdogs. */
  tree: number[];
}

/** Live processes as pid → parent pid; zombies count as gone (an orphan's reaper may be slow here). */
function processTable(): Map<number, number> {
  const table = new Map<number, number>();
  for (const line of execFileSync('ps', ['-eo', 'pid=,ppid=,stat=']).toString().trim().split('\n')) {
    const [pid, ppid, stat] = line.trim().split(/\s+/);
    if (!stat!.startsWith('Z')) table.set(Number(pid), Number(ppid));
  }
  return table;
}

function descendantsOf(pid: number): number[] {
  const table = processTable();
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    const children = [...table].filter(([, ppid]) => frontier.includes(ppid)).map(([child]) => child);
    found.push(...children);
    frontier = children;
  }
  return found;
}

/** Inodes of the sockets listening on `port` (IPv4 or IPv6), from the kernel's tables: no connection is tried. */
function listeningSockets(port: number): Set<string> {
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of fs.readFileSync(table, 'utf8').trim().split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const localPort = parseInt(fields[1]!.split(':').pop()!, 16);
      if (localPort === port && fields[3] === '0A') inodes.add(fields[9]!);
    }
  }
  return inodes;
}

/**
 * The processes holding a socket that listens on `port`, with their environment. The port was free when the test
 * took it, so once ours are gone another test's server may be given it by the OS: only a holder started by this
 * `npm start` (its environment names our DATA_DIR) is one left behind.
 */
function listenersOf(port: number): Array<{ pid: number; environment: string }> {
  const inodes = listeningSockets(port);
  if (inodes.size === 0) return [];
  const holders: Array<{ pid: number; environment: string }> = [];
  for (const entry of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const links = fs.readdirSync(`/proc/${entry}/fd`).map((fd) => {
        try {
          return fs.readlinkSync(`/proc/${entry}/fd/${fd}`);
        } catch {
          return ''; // Closed while we read.
        }
      });
      if (links.some((link) => inodes.has(link.replace(/^socket:\[(\d+)\]$/, '$1')))) {
        holders.push({ pid: Number(entry), environment: fs.readFileSync(`/proc/${entry}/environ`, 'utf8') });
      }
    } catch {
      // The process ended while we read it.
    }
  }
  return holders;
}

/** `npm start` as an operator runs it, on a fresh DATA_DIR and free ports, until /readyz answers. */
async function startNpm(t: ExecutionContext): Promise<Started> {
  // World-traversable: run as root, PostgreSQL runs as the `postgres` user.
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'coopbank-stop-'));
  fs.chmodSync(dataDir, 0o755);
  const [port, pgPort, temporalPort, uiPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const npm = spawn('npm', ['start'], {
    cwd: root,
    stdio: 'ignore',
    env: {
      PATH: process.env.PATH ?? '',
      HOME: dataDir,
      LOG_LEVEL: 'warn',
      DATA_DIR: path.join(dataDir, 'data'),
      PORT: String(port),
      EMBEDDED_PG_PORT: String(pgPort),
      TEMPORAL_DEV_PORT: String(temporalPort),
      TEMPORAL_UI_PORT: String(uiPort),
      TEMPORAL_CLI_PATH: ensureTemporalCli(),
      WORKFLOW_BUNDLE_PATH: testEnvironment().bundlePath,
      INITIAL_ADMIN_PASSWORD: 'a long enough password',
    },
  });
  const pid = npm.pid!;
  t.teardown(() => {
    for (const child of [pid, ...descendantsOf(pid)]) {
      try {
        process.kill(child, 'SIGKILL');
      } catch {
        // Gone already: what the test expects.
      }
    }
    fs.rmSync(dataDir, { recursive: true, force: true });
  });
  await until(
    'npm start to answer /readyz',
    async () => (await fetch(`http://127.0.0.1:${port}/readyz`).catch(() => undefined))?.status === 200,
    startTimeoutMs,
  );
  const started = {
    npm: pid,
    dataDir: path.join(dataDir, 'data'),
    ports: [port, pgPort, temporalPort, uiPort],
    tree: descendantsOf(pid),
  };
  // The check that ends each test must see a holder of ours: the API, PostgreSQL and Temporal all hold theirs now.
  for (const held of started.ports.slice(0, 3))
    t.true(oursListeningOn(started, held).length > 0, `nothing of ours listens on ${held}`);
  return started;
}

/** The pids of this `npm start` that hold a socket listening on `port`. */
const oursListeningOn = (started: Started, port: number): number[] =>
  listenersOf(port)
    .filter(({ environment }) => environment.split('\0').includes(`DATA_DIR=${started.dataDir}`))
    .map(({ pid }) => pid);

async function assertAllGone(t: ExecutionContext, started: Started): Promise<void> {
  const everyone = [started.npm, ...started.tree];
  await until(
    'every process of npm start to end',
    async () => {
      const alive = processTable();
      return everyone.every((pid) => !alive.has(pid));
    },
    stopTimeoutMs,
  );
  for (const port of started.ports)
    t.deepEqual(oursListeningOn(started, port), [], `port ${port} still held by a process of this npm start`);
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  test(`${signal} to the npm process stops node, PostgreSQL and Temporal`, async (t) => {
    t.timeout(startTimeoutMs + stopTimeoutMs + 30_000);
    const started = await startNpm(t);
    // node, PostgreSQL, Temporal and a watchdog of each at least: the tree the signal must take down.
    t.true(started.tree.length >= 5, `tree: ${started.tree.join(' ')}`);
    process.kill(started.npm, signal);
    await assertAllGone(t, started);
  });
}

test('the all-in-one killed outright takes PostgreSQL and Temporal along (the watchdogs)', async (t) => {
  t.timeout(startTimeoutMs + stopTimeoutMs + 30_000);
  const started = await startNpm(t);
  const node = descendantsOf(started.npm).find((pid) => processTable().get(pid) === started.npm)!;
  process.kill(node, 'SIGKILL');
  await assertAllGone(t, started);
});
