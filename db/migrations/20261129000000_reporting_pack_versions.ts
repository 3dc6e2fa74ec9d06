import type { Knex } from 'knex';

/**
 * Versions of a month's reporting pack (docs/architecture.md §10): a pack made while an earlier year was open, or
 * before a late entry into its month, is reissued as a new version that names the one it supersedes, why, and how
 * its figures differ. Every version stays as it was stored: a stored pack's row is never changed again.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.raw(`
    ALTER TABLE reporting_packs
      ADD COLUMN version integer NOT NULL DEFAULT 1,
      ADD COLUMN supersedes_id uuid REFERENCES reporting_packs(id),
      ADD COLUMN reissue_reason text,
      ADD COLUMN open_exercices text[] NOT NULL DEFAULT '{}',
      ADD COLUMN figures jsonb,
      ADD COLUMN differences jsonb,
      DROP CONSTRAINT reporting_packs_one_per_month,
      ADD CONSTRAINT reporting_packs_one_per_version UNIQUE (enterprise_id, period, version),
      ADD CONSTRAINT reporting_packs_version_chain CHECK ((version = 1) = (supersedes_id IS NULL) AND (version = 1) = (reissue_reason IS NULL));

    CREATE FUNCTION coopbank_stored_reporting_pack_unchanged() RETURNS trigger LANGUAGE plpgsql AS $$
    BEGIN
      RAISE EXCEPTION 'reporting pack % version % is stored: a pack sent stays as it was sent (reissue it as a new version)', OLD.period, OLD.version;
    END $$;
    CREATE TRIGGER reporting_packs_stored_unchanged BEFORE UPDATE OR DELETE ON reporting_packs
      FOR EACH ROW WHEN (OLD.status = 'stored') EXECUTE FUNCTION coopbank_stored_reporting_pack_unchanged();
  `);
}

export async function down(knex: Knex): Promise<void> {
  await knex.raw(`
    DROP TRIGGER reporting_packs_stored_unchanged ON reporting_packs;
    DROP FUNCTION coopbank_stored_reporting_pack_unchanged();
    ALTER TABLE reporting_pack_files DISABLE TRIGGER reporting_pack_files_immutable;
    DELETE FROM reporting_pack_files WHERE pack_id IN (SELECT id FROM reporting_packs WHERE version > 1);
    ALTER TABLE reporting_pack_files ENABLE TRIGGER reporting_pack_files_immutable;
    DELETE FROM reporting_packs WHERE version > 1;
    ALTER TABLE reporting_packs
      DROP CONSTRAINT reporting_packs_version_chain,
      DROP CONSTRAINT reporting_packs_one_per_version,
      ADD CONSTRAINT reporting_packs_one_per_month UNIQUE (enterprise_id, period),
      DROP COLUMN differences, DROP COLUMN figures, DROP COLUMN open_exercices, DROP COLUMN reissue_reason, DROP COLUMN supersedes_id, DROP COLUMN version;
  `);
}
