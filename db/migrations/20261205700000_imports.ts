import type { Knex } from 'knex';

/**
 * Issue 31, go-live import (docs/domain.md §15): an import of an existing cooperative's data and its staging
 * tables. Uploaded files land in `import_rows`, row by row, as text; validation writes `import_problems`. Nothing
 * outside these tables is written before apply (a later slice).
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('imports', (table) => {
    table.uuid('id').primary().defaultTo(knex.raw('gen_random_uuid()'));
    table.timestamp('created_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.date('cut_over_date').notNullable();
    table.string('status', 20).notNullable().defaultTo('uploaded');
    table.uuid('uploaded_by').notNullable().references('users.id');
    table.timestamp('validated_at', { useTz: true });
    table.check(`status IN ('uploaded', 'validated', 'rejected')`, [], 'imports_status_known');
    table.index(['enterprise_id', 'created_at']);
  });
  // One row per kind uploaded: its format and size; a new upload of the kind replaces it.
  await knex.schema.createTable('import_files', (table) => {
    table.uuid('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    table.string('kind', 30).notNullable();
    table.string('format', 4).notNullable();
    table.integer('rows').notNullable();
    table.bigInteger('bytes').notNullable();
    table.uuid('uploaded_by').notNullable().references('users.id');
    table.timestamp('uploaded_at', { useTz: true }).notNullable().defaultTo(knex.fn.now());
    table.primary(['import_id', 'kind']);
    table.check(`format IN ('csv', 'xlsx')`, [], 'import_files_format_known');
  });
  await knex.schema.createTable('import_rows', (table) => {
    table.uuid('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    table.string('kind', 30).notNullable();
    // The row's number in the file, the header being row 1: what the report names.
    table.integer('row_number').notNullable();
    // Every cell as text, by column name: validation reads the types.
    table.jsonb('data').notNullable();
    // The columns whose cell held a formula: never evaluated, refused by validation.
    table.specificType('formulas', 'text[]').notNullable().defaultTo('{}');
    table.primary(['import_id', 'kind', 'row_number']);
  });
  await knex.schema.createTable('import_problems', (table) => {
    table.bigIncrements('id').primary();
    table.uuid('import_id').notNullable().references('imports.id').onDelete('CASCADE');
    table.string('kind', 30).notNullable();
    table.integer('row_number').notNullable();
    table.string('column', 60).notNullable();
    table.text('value').notNullable();
    table.text('problem').notNullable();
    table.index(['import_id', 'kind', 'row_number']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('import_problems');
  await knex.schema.dropTable('import_rows');
  await knex.schema.dropTable('import_files');
  await knex.schema.dropTable('imports');
}
