import { createHash } from 'node:crypto';
import type { Knex } from 'knex';
import { AppError, NotFoundError } from '../../domain/errors';
import {
  documentFigures,
  figureDifferences,
  packRefusal,
  reissueRefusal,
  type FigureDifference,
  type PackFigures,
} from '../../domain/accounts/reporting-pack';
import { periodDates } from '../../domain/enterprise/month-end';
import type { ReportDocument, ReportSheet } from '../../domain/accounts/report-document';
import { inTransaction } from '../../db/transaction';
import { chainAnchors, recordAudit, type ChainAnchor } from '../audit';
import type { ActivityContext, Actor } from '../context';
import { businessDateOf } from '../enterprise/configuration.activity';
import { reportFileBytes, reportFileFormats } from '../report-files';
import { reportingPackReports, type PackFacts } from './reporting-pack-reports';
import { reportHeading } from './statement-documents';
import { balanceScopeAt, exerciceCovering } from './year-balances';

/**
 * The monthly reporting pack (docs/architecture.md §10): requested at the API (or by the month end), made by the
 * reportingPack workflow in one transaction, its files stored with their SHA-256 and never made again. A pack
 * is final once stored: a second request answers it as it is. A pack whose figures may be wrong (an earlier
 * year was open, or an entry came late into its month) is reissued as a new version; the old one stays.
 */

export interface ReportingPackRow {
  id: string;
  enterprise_id: string;
  period: string;
  status: 'running' | 'stored' | 'failed';
  requested_by: string | null;
  failure: string | null;
  generated_at: Date | null;
  created_at: Date;
  version: number;
  supersedes_id: string | null;
  reissue_reason: string | null;
  open_exercices: string[];
  differences: FigureDifference[] | null;
  /** The chains' heads when the pack was stored (null before, and for packs stored before issue 27's anchor). */
  chain_anchors: ChainAnchor[] | null;
}

/** A pack's columns but its figures (kept to compare versions, never answered). */
export const packColumns = [
  'id',
  'enterprise_id',
  'period',
  'status',
  'requested_by',
  'failure',
  'generated_at',
  'created_at',
  'version',
  'supersedes_id',
  'reissue_reason',
  'open_exercices',
  'differences',
  'chain_anchors',
] as const;

/** The month's latest version, locked. */
const latestVersion = (trx: Knex.Transaction, month: PackMonth): Promise<ReportingPackRow> =>
  trx('reporting_packs')
    .where({ enterprise_id: month.enterpriseId, period: month.period })
    .orderBy('version', 'desc')
    .forUpdate()
    .first(packColumns);

/** An enterprise's month, `YYYY-MM`. */
export interface PackMonth {
  enterpriseId: string;
  period: string;
}

/** Why the month's pack cannot be made now (422), read in the caller's transaction. */
async function refusalOf(trx: Knex | Knex.Transaction, enterpriseId: string, period: string, now: Date) {
  const year = await exerciceCovering(trx, enterpriseId, periodDates(period).end);
  return packRefusal({
    period,
    businessDate: await businessDateOf(trx, enterpriseId, now),
    yearCoversLastDay: year !== undefined,
  });
}

/**
 * Records a request for a month's pack: a new pack, or a failed one run again. A pack stored or being made is
 * answered as it is, and `start` says whether a workflow must be started for it.
 */
export async function requestReportingPack(
  context: ActivityContext,
  actor: Actor,
  input: PackMonth,
): Promise<{ pack: ReportingPackRow; start: boolean }> {
  return inTransaction(context.knex, async (trx) => {
    const refusal = await refusalOf(trx, input.enterpriseId, input.period, context.clock());
    if (refusal !== null)
      throw new AppError('unprocessable', refusal.code, refusal.message, [
        { field: 'period', message: refusal.message },
      ]);
    const created = await trx('reporting_packs')
      .insert({ enterprise_id: input.enterpriseId, period: input.period, requested_by: actor.userId })
      .onConflict(['enterprise_id', 'period', 'version'])
      .ignore()
      .returning('id');
    const pack = await latestVersion(trx, input);
    const again = pack.status === 'failed';
    const [current] = again
      ? await trx('reporting_packs')
          .where({ id: pack.id })
          .update({ status: 'running', failure: null, requested_by: actor.userId })
          .returning(packColumns)
      : [pack];
    const found = created.length === 0 && !again ? pack.status : null;
    await recordAudit(trx, actor, {
      action: 'reporting_pack.request',
      entityType: 'reporting_pack',
      entityId: pack.id,
      enterpriseId: input.enterpriseId,
      details: { period: input.period, resumed: again, found },
    });
    return { pack: current as ReportingPackRow, start: created.length === 1 || again };
  });
}

/**
 * The workflow's way in: the month's latest version, the first created when it has none yet (by the month end:
 * `requested_by` null).
 */
export async function openReportingPack(
  knex: Knex,
  input: PackMonth,
): Promise<{ packId: string; status: ReportingPackRow['status'] }> {
  return inTransaction(knex, async (trx) => {
    await trx('reporting_packs')
      .insert({ enterprise_id: input.enterpriseId, period: input.period })
      .onConflict(['enterprise_id', 'period', 'version'])
      .ignore();
    const pack = await latestVersion(trx, input);
    if (pack.status === 'failed')
      await trx('reporting_packs').where({ id: pack.id }).update({ status: 'running', failure: null });
    return { packId: pack.id, status: pack.status === 'failed' ? 'running' : pack.status };
  });
}

/** What the pack's reports are made of: the enterprise consolidated at the month's last day. */
async function packFacts(trx: Knex.Transaction, pack: ReportingPackRow, now: Date): Promise<PackFacts> {
  const monthEnd = periodDates(pack.period).end;
  const exercice = await exerciceCovering(trx, pack.enterprise_id, monthEnd);
  const chart = await trx('company_charts').where({ enterprise_id: pack.enterprise_id }).first('id');
  if (exercice === undefined || chart === undefined)
    throw new AppError(
      'unprocessable',
      'no_exercice_for_period',
      `No accounting year of the enterprise covers ${monthEnd}.`,
    );
  return {
    scope: { enterpriseId: pack.enterprise_id, chartId: chart.id, branch: null, branches: 'all' },
    monthEnd,
    exercice: { id: exercice.id, startDate: exercice.start_date },
    heading: await reportHeading(trx, { enterpriseId: pack.enterprise_id, branch: null }, now),
  };
}

/**
 * The document with each sheet's rows read once, in the order of the sheets: the pack goes through them three times
 * (its figures, the CSV, the XLSX), and the books' rows (journal book, general ledger) are a pass over the month's
 * journal lines each time they are iterated. The pack holds its files in memory anyway.
 */
async function rowsReadOnce(document: ReportDocument): Promise<ReportDocument> {
  const sheets: ReportSheet[] = [];
  for (const sheet of document.sheets) {
    const rows: Readonly<Record<string, string | null>>[] = [];
    for await (const row of sheet.rows) rows.push(row);
    sheets.push({ ...sheet, rows });
  }
  return { ...document, sheets };
}

/**
 * Makes every report of the pack in both formats and stores the files, in one transaction with the pack's
 * move to `stored`: a pack is whole or absent. Its figures are kept beside the files, and a reissued version
 * records how they differ from the version it supersedes. A pack not running (stored already) is left as it is.
 */
export async function storeReportingPack(
  knex: Knex,
  now: Date,
  input: { packId: string },
): Promise<{ stored: boolean; files: number }> {
  return inTransaction(knex, async (trx) => {
    const pack: ReportingPackRow | undefined = await trx('reporting_packs')
      .where({ id: input.packId })
      .forUpdate()
      .first(packColumns);
    if (pack === undefined) throw new NotFoundError('The reporting pack');
    if (pack.status !== 'running') return { stored: false, files: 0 };
    const facts = await packFacts(trx, pack, now);
    const figures: PackFigures = {};
    let files = 0;
    for (const report of reportingPackReports) {
      const document = await rowsReadOnce(await report.build(trx, facts));
      figures[report.name] = await documentFigures(document);
      for (const format of reportFileFormats) {
        const content = await reportFileBytes(document, format);
        await trx('reporting_pack_files').insert({
          enterprise_id: pack.enterprise_id,
          pack_id: pack.id,
          report: report.name,
          format,
          content,
          sha256: createHash('sha256').update(content).digest('hex'),
          size_bytes: content.length,
        });
        files += 1;
      }
    }
    const superseded =
      pack.supersedes_id === null
        ? undefined
        : await trx('reporting_packs').where({ id: pack.supersedes_id }).first('figures');
    const differences = superseded === undefined ? null : figureDifferences(superseded.figures ?? {}, figures);
    const { openExercices } = await balanceScopeAt(trx, pack.enterprise_id, facts.monthEnd, 'all');
    // generated_at is the database's time, as the entries' created_at it is compared with (reissueReportingPack):
    // the process's clock may differ from it (another host, a test clock).
    await trx('reporting_packs')
      .where({ id: pack.id })
      .update({
        status: 'stored',
        generated_at: trx.fn.now(),
        open_exercices: openExercices,
        figures: JSON.stringify(figures),
        differences: differences === null ? null : JSON.stringify(differences),
        // The chains' heads as the pack is stored: sent with it, they anchor the chains outside the database.
        chain_anchors: JSON.stringify(await chainAnchors(trx, pack.enterprise_id)),
      });
    return { stored: true, files };
  });
}

/**
 * Records the reissue of a stored pack as the month's next version (running), when its figures may be wrong
 * (domain/accounts/reporting-pack.ts, reissueRefusal): the workflow then makes it as it made the first.
 */
export async function reissueReportingPack(
  context: ActivityContext,
  actor: Actor,
  input: { packId: string; reason: string },
): Promise<ReportingPackRow> {
  return inTransaction(context.knex, async (trx) => {
    const pack: ReportingPackRow | undefined = await trx('reporting_packs')
      .where({ id: input.packId })
      .first(packColumns);
    if (pack === undefined) throw new NotFoundError('The reporting pack');
    const latest = await latestVersion(trx, { enterpriseId: pack.enterprise_id, period: pack.period });
    const lateEntries =
      pack.generated_at === null
        ? 0
        : Number(
            (
              await trx('journal_entries')
                .where({ enterprise_id: pack.enterprise_id })
                .where('entry_date', '<=', periodDates(pack.period).end)
                .where('created_at', '>', pack.generated_at)
                .count({ n: '*' })
                .first()
            )?.n ?? 0,
          );
    const refusal = reissueRefusal({
      latest: latest.id === pack.id,
      stored: pack.status === 'stored',
      provisional: pack.open_exercices.length > 0,
      lateEntries,
    });
    if (refusal !== null) throw new AppError('conflict', refusal.code, refusal.message);
    const version = { version: pack.version + 1, supersedes_id: pack.id, reissue_reason: input.reason };
    const [reissued] = await trx('reporting_packs')
      .insert({ enterprise_id: pack.enterprise_id, period: pack.period, ...version, requested_by: actor.userId })
      .returning(packColumns);
    const details = {
      period: pack.period,
      version: reissued.version,
      supersedes: pack.id,
      reason: input.reason,
      provisional: pack.open_exercices,
      late_entries: lateEntries,
    };
    await recordAudit(trx, actor, {
      action: 'reporting_pack.reissue',
      entityType: 'reporting_pack',
      entityId: reissued.id,
      enterpriseId: pack.enterprise_id,
      details,
    });
    return reissued as ReportingPackRow;
  });
}

export async function markReportingPackFailed(knex: Knex, input: { packId: string; failure: string }): Promise<void> {
  await knex('reporting_packs')
    .where({ id: input.packId, status: 'running' })
    .update({ status: 'failed', failure: input.failure });
}
