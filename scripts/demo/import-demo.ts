import fs from 'node:fs';
import path from 'node:path';
import type { CoopbankApi, Page, Session } from './api-client';
import { createCooperative } from './cooperative';
import { ProgressFile } from './progress';

/** What the go-live import leaves behind, for the summary and the test. */
export interface ImportDemoOutcome {
  import: string;
  enterprise: string;
  status: string;
  reconciled: boolean;
  /** Rows applied per kind of file. */
  rows: Record<string, number>;
}

interface ImportRead {
  id: string;
  status: string;
  problems: number;
  reconciliation: { reconciled: boolean } | null;
}

// The kinds in the order they are uploaded: members before the accounts and loans that name them, the trial balance last.
const kinds = ['members', 'member-accounts', 'loans', 'loan-installments', 'trial-balance'] as const;
const filesDir = path.join(__dirname, 'import-files');

/**
 * The go-live import (issue 31, docs/domain.md §15.1): a second, empty cooperative `<code>I` takes in a small
 * cooperative kept until now in spreadsheets — its members, their accounts, two loans in progress with their
 * installments and the trial balance at the cut-over (scripts/demo/import-files/). Direction uploads and asks for
 * apply; the administrator approves (four eyes); the import's workflow applies, posts the opening entries and
 * reconciles. A second enterprise keeps the demo cooperative's own counts as they are.
 */
export async function importCooperative(api: CoopbankApi, platformAdmin: Session, where: { code: string; dataDir: string }, log: (line: string) => void) {
  const code = `${where.code}I`;
  const cooperative = await createCooperative(api, platformAdmin, code, ProgressFile.of(where.dataDir, code));
  const direction = cooperative.staff.direction.session;
  const enterprise = cooperative.enterpriseId;
  const earlier = await direction.get<Page<ImportRead>>('look for an earlier import', '/api/v1/imports/', { enterprise, status: 'applied' });
  const imported = earlier.results[0] ?? (await applyFiles(direction, cooperative.staff.admin.session, enterprise));
  const rows: Record<string, number> = {};
  for (const kind of kinds) rows[kind] = fs.readFileSync(path.join(filesDir, `${kind}.csv`), 'utf8').trim().split('\n').length - 1;
  log(`${code}: a cooperative moved in from files (${rows.members} members, ${rows['member-accounts']} accounts, ${rows.loans} loans), its import ${imported.status}, reconciled`);
  return { import: imported.id, enterprise, status: imported.status, reconciled: imported.reconciliation?.reconciled === true, rows };
}

/** Creates the import, uploads the files, validates, and has apply asked by the uploader and approved by another. */
async function applyFiles(direction: Session, administrator: Session, enterprise: string): Promise<ImportRead> {
  const created = await direction.post<{ id: string }>('create the go-live import', '/api/v1/imports/', { enterprise, cut_over_date: '2026-10-31' });
  const base = `/api/v1/imports/${created.id}`;
  for (const kind of kinds) await direction.putCsv(`upload the ${kind} file`, `${base}/files/${kind}/`, fs.readFileSync(path.join(filesDir, `${kind}.csv`), 'utf8'));
  await direction.post('ask for the import\'s validation', `${base}/validation/`, {});
  const validated = await importPast(direction, base, ['validating']);
  if (validated.status !== 'validated') throw new Error(`the demo's import files were not validated: ${validated.status}, ${validated.problems} problems (GET ${base}/report/)`);
  const request = await direction.post<{ id: string }>('ask to apply the import', `${base}/application/`, {});
  await administrator.post('approve applying the import', `/api/v1/approvals/requests/${request.id}/approve/`, { reason: 'Fichiers contrôlés, balance rapprochée' });
  // The approval wakes the import's workflow, which applies at once.
  return importPast(direction, base, ['validated', 'applying']);
}

/** The import read once its workflow has moved it past `passing` (it validates, then applies, in the background). */
async function importPast(direction: Session, base: string, passing: readonly string[]): Promise<ImportRead> {
  for (let waited = 0; waited < 600; waited += 1) {
    const read = await direction.get<ImportRead>('read the import', `${base}/`);
    if (!passing.includes(read.status)) return read;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`the import at ${base} was still ${passing.join(' or ')} after 5 minutes`);
}
