import type { Knex } from 'knex';
import { addStandardColumns, touchUpdatedAtOnUpdate } from '../migration-helpers';

/**
 * The members of the cooperative (client profiles): natural persons and legal entities, each attached to a
 * home branch and numbered per branch. Accounts, shares and loans hang off this row.
 */
export async function up(knex: Knex): Promise<void> {
  // Target of the members' (branch_id, enterprise_id) key: a member's enterprise is its branch's.
  await knex.raw('ALTER TABLE branches ADD CONSTRAINT branches_id_enterprise_unique UNIQUE (id, enterprise_id)');

  await knex.schema.createTable('client_profiles', (table) => {
    addStandardColumns(knex, table);
    table.uuid('enterprise_id').notNullable().references('enterprises.id');
    table.uuid('branch_id').notNullable();
    table.string('member_number', 30).notNullable();
    table.string('kind', 20).notNullable();
    table.string('first_name', 100).notNullable().defaultTo('');
    table.string('last_name', 100).notNullable().defaultTo('');
    table.string('legal_name', 200).notNullable().defaultTo('');
    table.string('id_document_type', 30).notNullable();
    table.string('id_document_number', 50).notNullable();
    table.date('id_document_expiry');
    table.date('birth_date');
    table.string('gender', 10);
    table.specificType('nationality', 'char(2)').notNullable().defaultTo('CM');
    table.string('phone', 30).notNullable().defaultTo('');
    table.string('email', 254).notNullable().defaultTo('');
    table.string('address', 300).notNullable().defaultTo('');
    table.string('city', 100).notNullable().defaultTo('');
    table.string('occupation', 100).notNullable().defaultTo('');
    table.date('membership_date').notNullable(); // seniority: the share rules read it
    table.string('status', 20).notNullable().defaultTo('active');
    table.text('status_reason').notNullable().defaultTo('');
    table.string('risk_level', 10).notNullable().defaultTo('low');
    table.boolean('politically_exposed').notNullable().defaultTo(false);
    table.uuid('created_by').notNullable().references('users.id');
    table.foreign(['branch_id', 'enterprise_id'], 'client_profiles_branch_fk').references(['id', 'enterprise_id']).inTable('branches');
    table.unique(['enterprise_id', 'member_number'], { indexName: 'client_profiles_member_number_unique' });
    // One person is one member: the same identity document cannot be registered twice in an enterprise.
    table.unique(['enterprise_id', 'id_document_type', 'id_document_number'], { indexName: 'client_profiles_identity_unique' });
    table.index(['enterprise_id', 'branch_id', 'status'], 'client_profiles_branch_status');
    table.check(`kind IN ('natural_person', 'legal_entity')`, [], 'client_profiles_kind_known');
    table.check(
      `id_document_type IN ('national_id', 'passport', 'residence_permit', 'driving_licence', 'business_register')`,
      [],
      'client_profiles_id_document_type_known',
    );
    // Stored normalised (upper case, no spaces), so the identity index compares like with like.
    table.check(`id_document_number ~ '^[A-Z0-9/.-]+$'`, [], 'client_profiles_id_document_number_normalised');
    table.check(`gender IS NULL OR gender IN ('female', 'male')`, [], 'client_profiles_gender_known');
    table.check(`nationality ~ '^[A-Z]{2}$'`, [], 'client_profiles_nationality_code');
    table.check(`status IN ('active', 'suspended', 'left')`, [], 'client_profiles_status_known');
    table.check(`status = 'active' OR status_reason <> ''`, [], 'client_profiles_status_has_reason');
    table.check(`risk_level IN ('low', 'medium', 'high')`, [], 'client_profiles_risk_level_known');
    // A person has a first and last name, a birth date and a personal document; a legal entity has a legal
    // name and its business register number, and none of a person's attributes.
    table.check(
      `(kind = 'natural_person' AND first_name <> '' AND last_name <> '' AND legal_name = '' AND birth_date IS NOT NULL
          AND id_document_type <> 'business_register')
       OR (kind = 'legal_entity' AND legal_name <> '' AND first_name = '' AND last_name = '' AND birth_date IS NULL
          AND gender IS NULL AND id_document_type = 'business_register')`,
      [],
      'client_profiles_fields_fit_kind',
    );
  });
  await touchUpdatedAtOnUpdate(knex, 'client_profiles');
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('client_profiles');
  await knex.raw('ALTER TABLE branches DROP CONSTRAINT branches_id_enterprise_unique');
}
