import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The cooperative's governance organs (OHADA cooperative law: general assembly, board of directors,
 * supervisory board, credit committee) and the mandates of the people who sit on them.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('governance_organs', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.string('kind', 30).notNullable();
    table.string('name', 200).notNullable();
    table.string('description', 1000).notNullable().defaultTo('');
    // The statutes set up each organ once: a second board would make "the board's decision" ambiguous.
    table.unique(['enterprise_id', 'kind'], { indexName: 'governance_organs_kind_unique' });
    table.check(
      `kind IN ('general_assembly', 'board_of_directors', 'supervisory_board', 'credit_committee')`,
      [],
      'governance_organs_kind_known',
    );
  });
  await touchUpdatedAtOnUpdate(knex, 'governance_organs');

  // A row is one mandate: a person re-elected or changing office gets a new row, so the history stays.
  await knex.schema.createTable('governance_members', (table) => {
    addStandardColumns(knex, table);
    table.uuid('organ_id').notNullable().references('governance_organs.id');
    table.string('full_name', 200).notNullable();
    table.string('office', 20).notNullable();
    table.string('member_number', 30).notNullable().defaultTo(''); // the members module will own these numbers
    table.date('term_start').notNullable();
    table.date('term_end'); // null while serving
    table.string('ended_reason', 300);
    table.index(['organ_id'], 'governance_members_organ');
    table.check(`office IN ('chair', 'vice_chair', 'secretary', 'treasurer', 'member')`, [], 'governance_members_office_known');
    table.check('term_end IS NULL OR term_end >= term_start', [], 'governance_members_term_ordered');
    table.check('(term_end IS NULL) = (ended_reason IS NULL)', [], 'governance_members_end_has_reason');
  });
  await knex.raw(`
    CREATE UNIQUE INDEX governance_members_one_chair ON governance_members (organ_id)
    WHERE term_end IS NULL AND office = 'chair'`);
  await touchUpdatedAtOnUpdate(knex, 'governance_members');
}

export async function down(knex: Knex): Promise<void> {
  for (const table of ['governance_members', 'governance_organs']) await knex.schema.dropTable(table);
}
