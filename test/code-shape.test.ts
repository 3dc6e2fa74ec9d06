import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import ts from 'typescript';

/**
 * Functions a reader takes in at once: none longer than 70 lines outside the migrations (a migration is a
 * list of statements, read once) and the generated example client types.
 */
const root = path.join(__dirname, '..');
const maxLines = 70;

function longFunctions(file: string): string[] {
  const source = ts.createSourceFile(
    file,
    fs.readFileSync(path.join(root, file), 'utf8'),
    ts.ScriptTarget.Latest,
    true,
  );
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const lines =
        source.getLineAndCharacterOfPosition(node.getEnd()).line -
        source.getLineAndCharacterOfPosition(node.getStart()).line +
        1;
      const parent = node.parent;
      const name =
        (node as ts.FunctionDeclaration).name?.getText() ??
        (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) ? parent.name.getText() : 'a function');
      if (lines > maxLines)
        found.push(
          `${file}:${source.getLineAndCharacterOfPosition(node.getStart()).line + 1} ${name} (${lines} lines)`,
        );
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const typeScriptFiles = (): string[] =>
  execFileSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '*.ts'], {
    cwd: root,
    encoding: 'utf8',
  })
    .split('\n')
    .filter((file) => file !== '' && !file.endsWith('.d.ts') && fs.existsSync(path.join(root, file)));

test(`no function is longer than ${maxLines} lines`, (t) => {
  const files = typeScriptFiles().filter((file) => !file.startsWith('db/migrations/'));
  t.true(files.length > 100, 'the files of the repository are read');
  t.deepEqual(files.flatMap(longFunctions), []);
});

/**
 * Tests write literal dates of 2026, so the "now" a test hands the product or computes is the tests' clock
 * (test/helpers/clock.ts), never the calendar's: a Date built without argument, or today read from PostgreSQL,
 * in a test would break the suite on 2027-01-01 (docs/architecture.md §1). Date.now() stays for elapsed times
 * and Temporal's real time (a Schedule's hour).
 */
test('tests take "now" from the tests\' clock, not from the calendar', (t) => {
  const files = typeScriptFiles().filter((file) => file.startsWith('test/'));
  t.true(files.length > 50, 'the test files are read');
  const calendarNows = files.flatMap((file) =>
    fs
      .readFileSync(path.join(root, file), 'utf8')
      .split('\n')
      .flatMap((line, index) =>
        /new Date\(\)|\bcurrent_date\b|now\(\)\s+at time zone/i.test(line) ? [`${file}:${index + 1}`] : [],
      ),
  );
  t.deepEqual(calendarNows, []);
});
