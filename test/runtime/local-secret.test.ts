import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { readOrCreateSecret, resolveJwtSecret } from '../../runtime/local-secret';

function tempDir(t: import('ava').ExecutionContext): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'secret-'));
  t.teardown(() => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

test('a local secret is created once, owner-only, and the same on every later read', (t) => {
  const file = path.join(tempDir(t), 'nested', 'secret');
  const first = readOrCreateSecret(file);
  t.true(first.length >= 40);
  t.is(fs.statSync(file).mode & 0o777, 0o600);
  t.is(readOrCreateSecret(file), first);
});

test('JWT_SECRET wins; without it the key kept in DATA_DIR is used', (t) => {
  const dataDir = tempDir(t);
  t.is(resolveJwtSecret({ jwtSecret: 'z'.repeat(32), dataDir }), 'z'.repeat(32));
  t.false(fs.existsSync(path.join(dataDir, 'jwt-secret')));
  const generated = resolveJwtSecret({ jwtSecret: undefined, dataDir });
  t.is(fs.readFileSync(path.join(dataDir, 'jwt-secret'), 'utf8').trim(), generated);
  t.is(resolveJwtSecret({ jwtSecret: undefined, dataDir }), generated);
});
