import * as yup from 'yup';
import { provisionalOf } from '../../../activities/accounts/financial-statements';
import type { PackWithFiles } from '../../../activities/accounts/reporting-packs.queries';
import { reportingPackVersionWorkflowId } from '../../../workflows/identities';
import { chainAnchorSchema } from '../audit/ledger-verification.schemas';
import { provisionalResponse, timestampResponse, nullableId } from '../common.schemas';
import { monthRunFields } from '../enterprise/month-ends.schemas';

/** Representations of the reporting packs and of their files. */

const fileSchema = yup
  .object({
    name: yup
      .string()
      .required()
      .meta({ description: 'The file in the pack: `<report>.<format>`, e.g. balance-sheet.xlsx.' }),
    report: yup.string().required(),
    format: yup.string().oneOf(['csv', 'xlsx']).required(),
    size_bytes: yup.number().integer().required(),
    sha256: yup
      .string()
      .required()
      .meta({ description: 'SHA-256 of the stored bytes, hex: what was sent can be checked against it.' }),
  })
  .meta({ component: 'ReportingPackFile' });

export const packSchema = yup
  .object({
    ...monthRunFields,
    status: yup.string().oneOf(['running', 'stored', 'failed']).required(),
    requested_by: nullableId('Who asked for it; null when the month end made it.'),
    requested_at: timestampResponse(),
    generated_at: timestampResponse().nullable(),
    failure: yup.string().nullable().defined(),
    workflow_id: yup.string().required(),
    version: yup.number().integer().required().meta({
      description: "1 for the month's first pack; a reissue is the next version, and every version stays as stored.",
    }),
    supersedes: nullableId('The version this one reissues; null for version 1.'),
    reissue_reason: yup.string().nullable().defined(),
    ...provisionalResponse,
    differences: yup
      .array(
        yup
          .object({
            report: yup.string().required(),
            sheet: yup.string().required(),
            row: yup.string().required(),
            column: yup.string().required(),
            before: yup.string().nullable().defined(),
            after: yup.string().nullable().defined(),
          })
          .meta({ component: 'ReportingPackDifference' }),
      )
      .nullable()
      .defined()
      .meta({
        description:
          "How this version's figures differ from the version it supersedes, cell by cell (null for version " +
          '1, or until stored).',
      }),
    files: yup.array(fileSchema).required().meta({
      description: 'Each report of the pack as CSV and XLSX, stored as made; empty until the pack is stored.',
    }),
    chain_anchors: yup
      .array(chainAnchorSchema)
      .nullable()
      .defined()
      .meta({
        description:
          "Where the enterprise's two hash chains ended when the pack was stored (null until then): kept " +
          'with what was sent, ' +
          'one given to the ledger verification (anchor_chain, anchor_position, anchor_hash) proves the ' +
          'chain was not recomputed since.',
      }),
  })
  .meta({ component: 'ReportingPack' });

/** A pack as the API answers it: its files named `<report>.<format>`. */
export const serializePack = (pack: PackWithFiles) => ({
  id: pack.id,
  enterprise: pack.enterprise_id,
  period: pack.period,
  status: pack.status,
  requested_by: pack.requested_by,
  requested_at: pack.created_at.toISOString(),
  generated_at: pack.generated_at?.toISOString() ?? null,
  failure: pack.failure,
  workflow_id: reportingPackVersionWorkflowId(pack.enterprise_id, pack.period, pack.version),
  version: pack.version,
  supersedes: pack.supersedes_id,
  reissue_reason: pack.reissue_reason,
  ...provisionalOf(pack.open_exercices),
  differences: pack.differences,
  files: pack.files.map(({ pack_id: _pack, ...file }) => ({ name: `${file.report}.${file.format}`, ...file })),
  chain_anchors: pack.chain_anchors,
});
