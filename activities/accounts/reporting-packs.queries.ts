import type { Knex } from 'knex';
import type { ReportFileFormat } from '../report-files';
import { packColumns, type ReportingPackRow } from './reporting-packs.activity';

/** The reads of the reporting packs and of their stored files. */

/** A stored file of a pack, without its bytes. */
export type PackFileRow = {
  pack_id: string;
  report: string;
  format: ReportFileFormat;
  size_bytes: number;
  sha256: string;
};

/** A pack with its files, by report then format. */
export type PackWithFiles = ReportingPackRow & { files: PackFileRow[] };

/** The packs, the latest month first, and each month's latest version first. */
export const reportingPacksQuery = (knex: Knex): Knex.QueryBuilder =>
  knex('reporting_packs')
    .select(packColumns)
    .orderBy([{ column: 'period', order: 'desc' }, { column: 'version', order: 'desc' }, { column: 'id' }]);

export const reportingPackById = (knex: Knex, id: string) =>
  knex('reporting_packs').where({ id }).first(packColumns) as Promise<ReportingPackRow | undefined>;

/** The packs each with its files, in one more query. */
export async function withFiles(knex: Knex, packs: readonly ReportingPackRow[]): Promise<PackWithFiles[]> {
  const files: PackFileRow[] = await knex('reporting_pack_files')
    .whereIn(
      'pack_id',
      packs.map((pack) => pack.id),
    )
    .orderBy(['report', 'format'])
    .select('pack_id', 'report', 'format', 'size_bytes', 'sha256');
  return packs.map((pack) => ({ ...pack, files: files.filter((file) => file.pack_id === pack.id) }));
}

/** A file of a pack with its bytes. */
export const packFile = (knex: Knex, packId: string, report: string, format: ReportFileFormat) =>
  knex('reporting_pack_files').where({ pack_id: packId, report, format }).first('content', 'sha256') as Promise<
    { content: Buffer; sha256: string } | undefined
  >;
