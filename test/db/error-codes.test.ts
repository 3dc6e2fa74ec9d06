import test from 'ava';
import { errorCatalogue, type ProblemCode } from '../../domain/error-catalogue';
import { createTestDatabase } from '../helpers/database';

/**
 * The database's refusals are catalogue codes (docs/architecture.md §6): every `coopbank_refuse(state, code, …)`
 * of every function of the migrated database (read from the database itself, wherever its source lives) names a
 * code of the catalogue, of the kind its SQLSTATE says. A code built at run time (`'account_' || status`) is
 * listed here with every code it can build, so each of them is a member too.
 */
const kindOfState: Record<string, string> = { CB404: 'not_found', CB409: 'conflict', CB422: 'unprocessable' };
const builtCodes: Record<string, ProblemCode[]> = { account_: ['account_frozen', 'account_closed'] };
const refusalCall = /coopbank_refuse\(\s*'(CB\d{3})'\s*,\s*'([a-z0-9_]+)'(\s*\|\|)?/g;

test("every code a database function refuses with is in the error catalogue, of its SQLSTATE's kind", async (t) => {
  const { knex } = await createTestDatabase(t);
  const { rows } = await knex.raw<{ rows: { name: string; definition: string }[] }>(`
    SELECT p.proname AS name, pg_get_functiondef(p.oid) AS definition
    FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
    WHERE n.nspname = current_schema() AND p.prokind = 'f'`);
  const found: { name: string; state: string; code: string }[] = [];
  for (const { name, definition } of rows) {
    for (const [, state, literal, concatenated] of definition.matchAll(refusalCall)) {
      const codes = concatenated === undefined ? [literal!] : builtCodes[literal!];
      t.not(codes, undefined, `${name} builds a code from '${literal}': list what it can build in builtCodes`);
      for (const code of codes ?? []) found.push({ name, state: state!, code });
    }
  }
  t.true(found.length >= 10, `the refusals were found (${found.length})`);
  for (const { name, state, code } of found) {
    const entry = (errorCatalogue as Record<string, { kind: string } | undefined>)[code];
    t.not(entry, undefined, `${name} refuses with ${code}, not in domain/error-catalogue.ts`);
    t.is(entry?.kind, kindOfState[state], `${name}: ${code} raised as ${state}`);
  }
});
