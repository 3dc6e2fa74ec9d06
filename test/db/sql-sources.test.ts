import fs from 'node:fs';
import path from 'node:path';
import test from 'ava';
import type { Knex } from 'knex';
import { createTestDatabase } from '../helpers/database';

/**
 * db/sql holds the current definition of every coopbank_* function and every trigger function (docs/architecture.md
 * §4, "SQL sources"), as pg_get_functiondef prints it after the `--` lines saying why. A migrated database must
 * hold exactly those: a function changed by a migration without its file, a function without a file, or a file
 * without a function is drift.
 */

const sqlRoot = path.join(__dirname, '..', '..', 'db', 'sql');

interface SourceFile {
  /** Relative to db/sql, without `.sql`, as applySqlSource names it. */
  name: string;
  folder: string;
  definition: string;
}

/** Every file under db/sql, its definition being what follows its leading comment lines. */
function sourceFiles(): Map<string, SourceFile> {
  const files = new Map<string, SourceFile>();
  for (const folder of fs.readdirSync(sqlRoot)) {
    for (const file of fs.readdirSync(path.join(sqlRoot, folder))) {
      const text = fs.readFileSync(path.join(sqlRoot, folder, file), 'utf8');
      const lines = text.split('\n');
      const firstCode = lines.findIndex((line) => !line.startsWith('--'));
      files.set(path.basename(file, '.sql'), {
        name: `${folder}/${path.basename(file, '.sql')}`,
        folder,
        definition: lines.slice(firstCode).join('\n'),
      });
    }
  }
  return files;
}

interface DatabaseFunction {
  name: string;
  returns_trigger: boolean;
  definition: string;
}

/** The functions of the schema the migrations own (not an extension's): coopbank_* ones and every trigger function. */
async function databaseFunctions(knex: Knex): Promise<DatabaseFunction[]> {
  const { rows } = await knex.raw<{ rows: DatabaseFunction[] }>(`
    SELECT p.proname AS name, p.prorettype = 'trigger'::regtype AS returns_trigger,
           pg_get_functiondef(p.oid) AS definition
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
     WHERE n.nspname = 'public' AND (p.proname LIKE 'coopbank\\_%' OR p.prorettype = 'trigger'::regtype)
       AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.objid = p.oid AND d.deptype = 'e')
     ORDER BY p.proname`);
  return rows;
}

/** What differs between the database and db/sql, one sentence each; none when they agree. */
async function drift(knex: Knex): Promise<string[]> {
  const files = sourceFiles();
  const functions = await databaseFunctions(knex);
  const problems: string[] = [];
  for (const fn of functions) {
    const file = files.get(fn.name);
    if (functions.filter((other) => other.name === fn.name).length > 1)
      problems.push(`${fn.name}: several functions of that name`);
    if (file === undefined) problems.push(`${fn.name}: no file under db/sql`);
    else if (file.definition !== fn.definition)
      problems.push(`${fn.name}: db/sql/${file.name}.sql differs from the database`);
    else if (file.folder !== (fn.returns_trigger ? 'triggers' : 'functions'))
      problems.push(`${fn.name}: in db/sql/${file.folder}`);
  }
  for (const [name, file] of files) {
    if (!functions.some((fn) => fn.name === name))
      problems.push(`db/sql/${file.name}.sql: no such function in the database`);
  }
  return problems;
}

test('the migrated database holds exactly the functions of db/sql, as their files write them', async (t) => {
  const { knex } = await createTestDatabase(t);
  t.deepEqual(await drift(knex), []);
  const names = (await databaseFunctions(knex)).map((fn) => fn.name);
  for (const expected of [
    'coopbank_post_entry',
    'coopbank_record_event',
    'coopbank_move_cash',
    'coopbank_lock_member_account',
    'coopbank_held_amount',
    'coopbank_number_entry',
  ]) {
    t.true(names.includes(expected), expected);
  }
});

test(
  'each file is its comment lines, then one CREATE OR ' + 'REPLACE FUNCTION of the function its file is named after',
  (t) => {
    const files = sourceFiles();
    t.true(files.size >= 18);
    for (const [name, file] of files) {
      t.true(file.definition.startsWith(`CREATE OR REPLACE FUNCTION public.${name}(`), file.name);
      t.is(file.definition.match(/CREATE OR REPLACE FUNCTION/g)?.length, 1, file.name);
      t.true(file.definition.endsWith('$function$\n'), file.name);
    }
  },
);

test(
  'drift is found: a function changed without its file, ' + 'a function without a file, a file without a function',
  async (t) => {
    const { knex } = await createTestDatabase(t);
    await knex.raw(`CREATE OR REPLACE FUNCTION coopbank_refuse(state text, refusal text, message text)
    RETURNS void LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION USING ERRCODE = state, MESSAGE = message;
    END $$`);
    await knex.raw('CREATE FUNCTION coopbank_stray() RETURNS integer LANGUAGE sql AS $$ SELECT 1 $$');
    await knex.raw('CREATE FUNCTION stray_trigger() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$');
    await knex.raw('DROP FUNCTION coopbank_unchanged_loan(uuid)');
    t.deepEqual(await drift(knex), [
      'coopbank_refuse: db/sql/functions/coopbank_refuse.sql differs from the database',
      'coopbank_stray: no file under db/sql',
      'stray_trigger: no file under db/sql',
      'db/sql/functions/coopbank_unchanged_loan.sql: no such function in the database',
    ]);
  },
);
