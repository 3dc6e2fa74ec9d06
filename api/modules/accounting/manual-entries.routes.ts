import type { Knex } from 'knex';
import * as yup from 'yup';
import {
  branchOfLines,
  cancelManualEntry,
  createManualEntry,
  draftOpeningEntry,
  draftReversal,
  manualEntryMakers,
  markManualEntrySubmitted,
  updateManualEntry,
  type ManualEntryFields,
} from '../../../activities/accounting/manual-entries.activity';
import { manualJournals, type DraftLine } from '../../../domain/accounting/manual-entries';
import { AppError } from '../../../domain/errors';
import { Money } from '../../../domain/money';
import { listQuerySchema, pageSchema, paginateRows, whereFilters } from '../../pagination';
import { AcceptedForApproval, defineRoute } from '../../route';
import { accountCodeSchema, enterpriseFilter, idParams, isoDate } from '../common.schemas';
import { scopeToVisible } from '../enterprise-scope';
import { amount } from '../money.schemas';
import { accountChoiceRefusals } from '../refusal-lists';
import { fourEyesRefusals, fourEyesRoute, runOrRequest } from '../approvals/four-eyes';
import {
  manualEntriesQuery,
  manualEntryLoaders,
  manualEntrySchema,
  manualEntryStatuses,
  serializeManualEntries,
  serializeManualEntry,
  type ManualEntryListRow,
} from './manual-entries.queries';

/**
 * Manual journal entries (docs/domain.md §12.1): drafted by an accountant (or a branch head, the direction, an
 * administrator), posted only once another person approves the submission (operation `manual_entry.post`, always
 * under four eyes). Read by the same roles and the auditor.
 */
export const writers = ['accountant', 'branch_head', 'direction', 'admin'] as const;
export const readers = [...writers, 'auditor'] as const;
const entryPath = '/api/v1/accounting/manual-entries/{id}/';

const lineSchema = yup
  .object({
    account: accountCodeSchema().required(),
    branch: yup.string().uuid().required(),
    debit: amount().optional(),
    credit: amount().optional(),
    label: yup.string().trim().max(200).nullable().optional(),
  })
  .test(
    'one-side',
    '${path} has a debit or a credit, not both',
    (line) => (line.debit === undefined) !== (line.credit === undefined),
  );

export const linesSchema = () => yup.array(lineSchema.required()).min(1).max(500);
const referenceSchema = () =>
  yup
    .string()
    .trim()
    .min(1)
    .max(60)
    .meta({ description: 'The supporting document (pièce): an invoice, a receipt, a minute.' });
export const labelSchema = () => yup.string().trim().min(1).max(200);

type LineBody = yup.InferType<typeof lineSchema>;
const zero = new Money(0);
export const draftLines = (lines: readonly LineBody[]): DraftLine[] =>
  lines.map((line) => ({
    account: line.account,
    branchId: line.branch,
    debit: line.debit ?? zero,
    credit: line.credit ?? zero,
    label: line.label ?? null,
  }));

/**
 * Where the lines are: a writer acts on the branch of all the lines, or on the whole enterprise when they span several.
 */
export const scopeOfLines = (enterpriseId: string, lines: readonly DraftLine[]) => ({
  enterpriseId,
  branchId: branchOfLines(lines),
});

export const draftRefusals = [
  ...accountChoiceRefusals,
  'manual_entry_subledger_account',
  'exercice_closed',
  'no_exercice_for_date',
  'as_of_after_business_date',
  'day_closed',
] as const;

/** The routes on one entry: the path's `{id}` loaded, seen where its lines are. */
const onEntry = { module: 'accounting', load: manualEntryLoaders.entry, params: idParams } as const;

const answer = async (deps: { knex: Knex }, id: string) =>
  serializeManualEntry(
    deps.knex,
    (await manualEntriesQuery(deps.knex).where('m.id', id).first()) as ManualEntryListRow,
  );

const listRoute = defineRoute({
  method: 'get',
  path: '/api/v1/accounting/manual-entries/',
  module: 'accounting',
  operationId: 'listManualEntries',
  summary: 'List manual journal entries, newest date first',
  access: readers,
  query: listQuerySchema([], {
    enterprise: enterpriseFilter,
    status: yup.string().oneOf(manualEntryStatuses).optional(),
    journal: yup.string().oneOf(manualJournals).optional(),
    kind: yup.string().oneOf(['standard', 'opening']).optional(),
    created_by: yup.string().uuid().optional().meta({ description: 'The maker.' }),
    date_from: isoDate().optional(),
    date_to: isoDate().optional(),
  }),
  response: pageSchema(manualEntrySchema),
  errorStatuses: [401, 403],
  refusals: ['page_not_found'],
  handler: async ({ query, principal, deps, ctx }) => {
    const builder = whereFilters(
      scopeToVisible(manualEntriesQuery(deps.knex), principal, {
        enterprise: 'm.enterprise_id',
        branch: 'm.branch_id',
      }),
      query,
      {
        enterprise: 'm.enterprise_id',
        status: 'm.status',
        journal: 'm.journal_code',
        kind: 'm.kind',
        created_by: 'm.created_by',
        date_from: ['m.entry_date', '>='],
        date_to: ['m.entry_date', '<='],
      },
    );
    const page = await paginateRows<ManualEntryListRow>(
      builder.orderBy([{ column: 'm.entry_date', order: 'desc' }, { column: 'm.created_at', order: 'desc' }, 'm.id']),
      query,
      new URL(ctx.href),
    );
    return { ...page, results: await serializeManualEntries(deps.knex, page.results) };
  },
});

const createRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/manual-entries/',
  module: 'accounting',
  operationId: 'createManualEntry',
  summary: 'Draft a manual journal entry (accountants, branch heads, direction, administrators)',
  description:
    'An unbalanced draft may be saved; it is refused when ' +
    'submitted. Each refusal of a line names it (`lines[2].account`).',
  access: writers,
  status: 201,
  location: entryPath,
  body: yup.object({
    enterprise: yup.string().uuid().required(),
    journal: yup.string().oneOf(manualJournals).default('OD'),
    entry_date: isoDate().required(),
    reference: referenceSchema().required(),
    label: labelSchema().required(),
    lines: linesSchema().required(),
  }),
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: draftRefusals,
  handler: async ({ body, principal, deps, authorize }) => {
    const lines = draftLines(body.lines);
    authorize(scopeOfLines(body.enterprise, lines), 'The enterprise');
    const id = await createManualEntry(deps.activities, principal, {
      enterpriseId: body.enterprise,
      kind: 'standard',
      journal: body.journal,
      entryDate: body.entry_date,
      reference: body.reference,
      label: body.label,
      lines,
    });
    return answer(deps, id);
  },
});

const detailRoute = defineRoute({
  method: 'get',
  path: entryPath,
  ...onEntry,
  operationId: 'getManualEntry',
  summary: 'A manual journal entry: its lines, its status, and once posted its journal entries',
  access: readers,
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404],
  handler: ({ resource, deps }) => serializeManualEntry(deps.knex, resource),
});

const updateRoute = defineRoute({
  method: 'patch',
  path: entryPath,
  ...onEntry,
  operationId: 'updateManualEntry',
  summary: 'Change a draft (or a rejected entry, which becomes a draft again); `lines` replaces them all',
  description:
    'Of an opening entry, `lines` is the trial balance: its suspense line is made ' +
    'again from them. A posted entry is never changed: it is corrected by its reversal.',
  access: writers,
  body: yup.object({
    journal: yup.string().oneOf(manualJournals).optional(),
    entry_date: isoDate().optional(),
    reference: referenceSchema().optional(),
    label: labelSchema().optional(),
    lines: linesSchema().optional(),
  }),
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: [...draftRefusals, 'manual_entry_not_editable'],
  handler: async ({ resource, body, principal, deps, authorize }) => {
    const lines = body.lines === undefined ? undefined : draftLines(body.lines);
    if (lines !== undefined) authorize(scopeOfLines(resource.enterprise_id, lines), 'The enterprise');
    const changes: Partial<ManualEntryFields> = {
      journal: body.journal,
      entryDate: body.entry_date,
      reference: body.reference,
      label: body.label,
      lines,
    };
    await updateManualEntry(
      deps.activities,
      principal,
      resource.id,
      Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined)),
    );
    return answer(deps, resource.id);
  },
});

const cancelRoute = defineRoute({
  method: 'delete',
  path: entryPath,
  ...onEntry,
  operationId: 'cancelManualEntry',
  summary: 'Cancel a draft (kept, `cancelled`, never posted)',
  access: writers,
  status: 204,
  errorStatuses: [401, 403, 404, 409],
  refusals: ['manual_entry_not_editable'],
  handler: async ({ resource, principal, deps }) => {
    await cancelManualEntry(deps.activities, principal, resource.id);
    return undefined;
  },
});

const submissionRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/manual-entries/{id}/submission/',
  ...onEntry,
  operationId: 'submitManualEntry',
  summary:
    'Submit a draft for validation: a request another person approves ' +
    '(which posts it) or rejects with a reason (which returns it)',
  description:
    'Always under four eyes (operation `manual_entry.post`): the maker never ' +
    'validates their own entry. The draft must balance, in total and per branch.',
  access: writers,
  status: 202,
  location: '/api/v1/approvals/requests/{id}/',
  ...fourEyesRoute,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: [
    ...draftRefusals,
    'manual_entry_not_editable',
    'manual_entry_unbalanced',
    'manual_entry_changed',
    'opening_entry_exists',
    'approval_always_four_eyes',
    ...fourEyesRefusals,
  ],
  handler: async ({ resource, principal, deps, ctx }) => {
    if (!['draft', 'rejected'].includes(resource.status))
      throw new AppError(
        'conflict',
        'manual_entry_not_editable',
        `The entry is ${resource.status}: only a draft or a rejected entry is submitted.`,
      );
    const requested = await runOrRequest(
      { deps, principal, ctx },
      {
        operation: 'manual_entry.post',
        payload: { manualEntryId: resource.id, version: resource.version },
        scope: { enterpriseId: resource.enterprise_id, branchId: resource.branch_id },
        makers: await manualEntryMakers(deps.knex, resource.id),
        summary:
          `Post manual entry ${resource.journal_code} ${resource.entry_date} ` +
          `${resource.reference}: ${resource.label}`,
      },
      () => {
        // The policy refuses to lift the four eyes of this operation (domain/approvals/policy.ts): never run by its
        // maker alone.
        throw new AppError(
          'unprocessable',
          'approval_always_four_eyes',
          'A manual entry is always validated by a second person.',
        );
      },
    );
    if (requested instanceof AcceptedForApproval) {
      await markManualEntrySubmitted(deps.activities, principal, {
        id: resource.id,
        version: resource.version,
        requestId: requested.request.id as string,
      });
    }
    return requested;
  },
});

const reversalRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/manual-entries/{id}/reversal/',
  ...onEntry,
  operationId: 'reverseManualEntry',
  summary: 'Draft the reversing entry of a posted entry: its lines swapped, linked to it, validated like any other',
  access: writers,
  status: 201,
  location: entryPath,
  body: yup.object({
    entry_date: isoDate().required(),
    reference: referenceSchema().required(),
    label: labelSchema().optional(),
  }),
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: [...draftRefusals, 'manual_entry_not_posted', 'manual_entry_reversed'],
  handler: async ({ resource, body, principal, deps }) => {
    const id = await draftReversal(deps.activities, principal, {
      id: resource.id,
      entryDate: body.entry_date,
      reference: body.reference,
      label: body.label ?? null,
    });
    return answer(deps, id);
  },
});

const openingRoute = defineRoute({
  method: 'post',
  path: '/api/v1/accounting/manual-entries/opening/',
  module: 'accounting',
  operationId: 'createOpeningEntry',
  summary: 'Draft the opening entry (à-nouveaux) from the trial balance at the cut-over date',
  description:
    'Journal AN, dated the first day of the first open accounting year unless `entry_date` ' +
    '(within that year) says otherwise. `lines` are the balances; accounts kept by a ' +
    "subledger are refused (the go-live import opens them with their detail). Each branch's " +
    "difference goes to the enterprise's suspense account (`opening_suspense_account_code`, " +
    'default 4780), to be justified by the import. One posted opening entry per enterprise.',
  access: writers,
  status: 201,
  location: entryPath,
  body: yup.object({
    enterprise: yup.string().uuid().required(),
    entry_date: isoDate().optional(),
    reference: referenceSchema().required(),
    label: labelSchema().default("Bilan d'ouverture"),
    lines: linesSchema().required(),
  }),
  response: manualEntrySchema,
  errorStatuses: [401, 403, 404, 409, 422],
  refusals: [...draftRefusals, 'opening_entry_exists'],
  handler: async ({ body, principal, deps, authorize }) => {
    const balances = draftLines(body.lines);
    authorize(scopeOfLines(body.enterprise, balances), 'The enterprise');
    const id = await draftOpeningEntry(deps.activities, principal, {
      enterpriseId: body.enterprise,
      entryDate: body.entry_date ?? null,
      reference: body.reference,
      label: body.label,
      balances,
    });
    return answer(deps, id);
  },
});

export const manualEntryRoutes = [
  listRoute,
  createRoute,
  openingRoute,
  detailRoute,
  updateRoute,
  cancelRoute,
  submissionRoute,
  reversalRoute,
];
