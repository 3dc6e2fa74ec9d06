import type { Knex } from 'knex';
import { postManualEntry, returnManualEntry } from '../accounting/manual-entries.activity';
import type { GrantRoleInput } from '../auth/users.activity';
import { grantRole } from '../auth/users.activity';
import type { ConfigurationChanges } from '../enterprise/configuration.activity';
import { updateConfiguration } from '../enterprise/configuration.activity';
import { setExerciceStatus } from '../enterprise/exercices.activity';
import { updatePrudentialSettings } from '../enterprise/prudential-settings.activity';
import { updateAllocationPolicy } from '../enterprise/result-allocation-policy.activity';
import { configureRule, type RuleChange } from '../events/configure-rule.activity';
import { writeOffLoan } from '../loans/portfolio-quality.activity';
import { applyGuaranteeChange, refusePendingGuarantee, type GuaranteeChange } from '../loans/loan-guarantees.activity';
import { withdrawApproved, type ApprovedWithdrawal } from '../members/cash-operations.activity';
import type { Actor, DataContext } from '../context';
import type { PrudentialOverrides } from '../../domain/accounts/prudential-settings';
import type { PolicyRule } from '../../domain/approvals/policy';
import { Money } from '../../domain/money';
import { updateShareType } from '../shares/share-types.activity';
import { setApprovalPolicy } from './approval-policy.activity';
import {
  recordSupplierInvoice,
  reverseSupplierInvoice,
  type SupplierInvoiceInput,
} from '../accounting/supplier-invoices.activity';
import { recordTreasuryTransfer, type TreasuryTransferInput } from '../accounting/treasury-transfers.activity';
import {
  recordSupplierPayment,
  reverseSupplierPayment,
  type SupplierPaymentInput,
} from '../accounting/supplier-payments.activity';
import { recordMemberTransfer, type MemberTransferInput } from '../cash/member-transfers.activity';
import { activateStandingOrder, rejectStandingOrder } from '../cash/standing-orders.activity';
import { recordInterBranchOperation, type InterBranchInput } from '../cash/inter-branch.activity';
import { settleDifference, type SettlementInput } from '../cash/difference-settlements.activity';
import {
  acquireFixedAsset,
  disposeFixedAsset,
  type AcquisitionPayload,
  type DisposalPayload,
} from '../accounting/fixed-assets.activity';
import type { SupplierReversalInput } from '../accounting/supplier-reversals';
// Issue 30, credit insurance and the usury rate.
import { setUsuryRate, type UsuryRateInput } from '../loans/usury-rates.activity';
import { applyRestructuring, closeRestructuring } from '../loans/loan-restructurings.activity';
// Issue 31, go-live import, the pipeline (part A).
import { approveImportApply, cancelImport, type ImportApplyPayload } from '../imports/apply';
import { importWorkflowId } from '../../workflows/identities';

/**
 * The one registry of what a request may carry (docs/architecture.md §7): each operation under four eyes, its
 * payload's type (what the route stored) and its executor, the very activity the route runs when no second
 * person is needed. The request records its scope, the resource's enterprise and branch, when it is made.
 * Adding an operation is a line here, its name in domain/approvals/policy.ts, and its route's call of
 * `runOrRequest` (api/modules/approvals/four-eyes.ts).
 */
export const approvalExecutors = {
  'business_date.move': (
    context: DataContext,
    maker: Actor,
    payload: { enterpriseId: string; changes: Pick<ConfigurationChanges, 'businessDate'> },
  ) => updateConfiguration(context, maker, payload.enterpriseId, payload.changes),
  'exercice.reopen': (context: DataContext, maker: Actor, payload: { exerciceId: string; reason: string }) =>
    setExerciceStatus(context, maker, payload.exerciceId, 'open', payload.reason),
  'loan.write_off': (context: DataContext, maker: Actor, payload: { loanId: string; approval: string }) =>
    writeOffLoan(context, maker, payload),
  'approval_policy.change': (
    context: DataContext,
    maker: Actor,
    payload: { enterpriseId: string; rules: PolicyRule[] },
  ) => setApprovalPolicy(context, maker, payload),
  // Four eyes on money (issue 27): adding, ending (or, issue 30, revaluing) a covering guarantee, and a withdrawal from
  // the policy's threshold.
  'guarantee.change': (context: DataContext, maker: Actor, payload: GuaranteeChange) =>
    applyGuaranteeChange(context, maker, payload),
  'member_account.withdrawal': (context: DataContext, maker: Actor, payload: ApprovedWithdrawal) =>
    withdrawApproved(context, maker, payload),
  // Issue 27: rules, share notice, role grants, prudential settings and the allocation policy.
  'accounting_rule.change': (
    context: DataContext,
    maker: Actor,
    payload: { enterpriseId: string; change: RuleChange },
  ) => configureRule(context, maker, payload.enterpriseId, payload.change),
  'share_type.notice_change': (
    context: DataContext,
    maker: Actor,
    payload: { shareTypeId: string; noticeDays: number | null },
  ) => updateShareType(context, maker, payload.shareTypeId, { noticeDays: payload.noticeDays }),
  'role_grant.above_cashier': (context: DataContext, maker: Actor, payload: GrantRoleInput) =>
    grantRole(context, maker, payload),
  'prudential_settings.change': (
    context: DataContext,
    maker: Actor,
    payload: { enterpriseId: string; changes: PrudentialOverrides },
  ) => updatePrudentialSettings(context, maker, payload.enterpriseId, payload.changes),
  // Rates travel as text (the payload is JSON); absent ones stay absent, unchanged.
  'result_allocation_policy.change': (
    context: DataContext,
    maker: Actor,
    payload: { enterpriseId: string; rates: Partial<Record<AllocationRate, string>>; absorbPriorLossesFirst?: boolean },
  ) =>
    updateAllocationPolicy(context, maker, payload.enterpriseId, {
      ...Object.fromEntries(Object.entries(payload.rates).map(([key, rate]) => [key, new Money(rate)])),
      absorbPriorLossesFirst: payload.absorbPriorLossesFirst,
    }),
  // Issue 28, part 1 (manual journal entries): a draft posted once a second person approves it.
  'manual_entry.post': (context: DataContext, maker: Actor, payload: { manualEntryId: string; version: number }) =>
    postManualEntry(context, maker, payload),
  // Issue 28, general accounting, 5. suppliers: an expense invoice booked, a supplier paid.
  'supplier_invoice.record': (context: DataContext, maker: Actor, payload: SupplierInvoiceInput) =>
    recordSupplierInvoice(context, maker, payload),
  supplier_payment: (context: DataContext, maker: Actor, payload: SupplierPaymentInput) =>
    recordSupplierPayment(context, maker, payload),
  // General accounting, part 4: fixed assets (issue 28), an acquisition and a disposal post to the books.
  'fixed_asset.acquisition': (context: DataContext, maker: Actor, payload: AcquisitionPayload) =>
    acquireFixedAsset(context, maker, payload),
  'fixed_asset.disposal': (context: DataContext, maker: Actor, payload: DisposalPayload) =>
    disposeFixedAsset(context, maker, payload),
  // Issue 28, part 6 (banks): money moved between the till and the banks.
  'treasury.transfer': (context: DataContext, maker: Actor, payload: TreasuryTransferInput) =>
    recordTreasuryTransfer(context, maker, payload),
  // Issue 29, transfers between members: a transfer from the policy's threshold on, made as the maker's with the
  // maker's key.
  'member_account.transfer': (context: DataContext, maker: Actor, payload: MemberTransferInput) =>
    recordMemberTransfer(context, maker, payload),
  // Issue 28's leftovers (issue 29 session): a supplier's invoice or payment reversed by its entry's reversal.
  'supplier_invoice.reverse': (context: DataContext, maker: Actor, payload: SupplierReversalInput) =>
    reverseSupplierInvoice(context, maker, payload),
  'supplier_payment.reverse': (context: DataContext, maker: Actor, payload: SupplierReversalInput) =>
    reverseSupplierPayment(context, maker, payload),
  // Issue 29: a standing order from the threshold on, recorded pending and activated by the approval.
  'standing_order.create': (context: DataContext, maker: Actor, payload: { standingOrderId: string }) =>
    activateStandingOrder(context, maker, payload),
  // Issue 29, serving members across branches: a withdrawal at another branch's counter, made as the maker's (their
  // till) with their key.
  'member_account.inter_branch_withdrawal': (context: DataContext, maker: Actor, payload: InterBranchInput) =>
    recordInterBranchOperation(context, maker, payload),
  // Issue 29, cash between the vault and the tills: a shortage or an excess settled.
  'cash_difference.settle': (context: DataContext, maker: Actor, payload: SettlementInput) =>
    settleDifference(context, maker, payload),
  // Issue 30, credit insurance and the usury rate: a usury rate recorded from its date.
  'usury_rate.change': (context: DataContext, maker: Actor, payload: UsuryRateInput) =>
    setUsuryRate(context, maker, payload),
  // Issue 30, restructuring: the new schedule version and the loan flagged, on the decision of a step above the
  // granting one.
  'loan.restructure': (context: DataContext, maker: Actor, payload: { restructuringId: string }) =>
    applyRestructuring(context, maker, payload),
  // Issue 31, go-live import, the pipeline (part A): apply approved, the import's workflow applies it; an applied
  // import cancelled.
  'import.apply': (context: DataContext, maker: Actor, payload: ImportApplyPayload) =>
    approveImportApply(context, maker, payload),
  'import.cancel': (context: DataContext, maker: Actor, payload: { importId: string }) =>
    cancelImport(context, maker, payload),
};

/** How a request ended without applying its operation, for the operation's own hook. */
export interface RequestClosing {
  requestId: string;
  status: 'rejected' | 'expired' | 'failed';
  /** The checker's reason of a rejection, else null. */
  reason: string | null;
}

/**
 * The hooks run when a request ends without its operation applied (rejected, expired, or failed on approval), in
 * the transaction that records it: for an operation whose resource waits in a state of its own meanwhile. Optional
 * per operation; a request whose operation has none runs nothing, as before.
 */
export const approvalClosers: {
  readonly [O in CoveredOperation]?: (
    trx: Knex.Transaction,
    payload: PayloadOf<O>,
    closing: RequestClosing,
  ) => Promise<void>;
} = {
  // Issue 27: a covering guarantee whose addition is not approved is refused, its pledged deposit's hold freed.
  'guarantee.change': async (trx, payload) => {
    if ('change' in payload && payload.change === 'add') await refusePendingGuarantee(trx, payload.guaranteeId);
  },
  // Issue 28, part 1: the entry goes back to its maker, rejected with the reason, editable again.
  'manual_entry.post': (trx, payload, closing) => returnManualEntry(trx, payload, closing),
  // Issue 29: the pending standing order is rejected; its Schedule finds nothing to run.
  'standing_order.create': (trx, payload, closing) => rejectStandingOrder(trx, payload, closing),
  // Issue 30, restructuring: the pending restructuring ends as its request did, with the reason.
  'loan.restructure': (trx, payload, closing) => closeRestructuring(trx, payload, closing),
};

/**
 * The workflow an approval wakes, for an operation whose own workflow waits for it: the request's workflow signals
 * it (`requestApprovedSignal`, workflows/definitions.ts) once the approval is written. Optional per operation.
 */
export const approvalWakers: { readonly [O in CoveredOperation]?: (payload: PayloadOf<O>) => string } = {
  // Issue 31: the import's workflow applies it as soon as apply is approved.
  'import.apply': (payload) => importWorkflowId(payload.importId),
};

type AllocationRate =
  'generalReserveRateMin' | 'trainingReserveRateMin' | 'optionalReservesRateMax' | 'shareInterestRateMax';

/** The operations a request can carry today. */
export type CoveredOperation = keyof typeof approvalExecutors;
export type PayloadOf<O extends CoveredOperation> = Parameters<(typeof approvalExecutors)[O]>[2];
