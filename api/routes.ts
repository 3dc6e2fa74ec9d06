import { accountRoutes } from './modules/accounts/account-plans.routes';
import { bankAccountRoutes } from './modules/accounting/bank-accounts.routes';
import { liaisonBalanceRoutes } from './modules/cash/liaison-balances.routes';
import { standingOrderRoutes } from './modules/cash/standing-orders.routes';
import { memberTransferRoutes } from './modules/cash/member-transfers.routes';
import { interBranchRoutes } from './modules/cash/inter-branch.routes';
import { treasuryTransferRoutes } from './modules/accounting/treasury-transfers.routes';
import { bankStatementRoutes } from './modules/accounting/bank-statements.routes';
import { supplierRoutes } from './modules/accounting/suppliers.routes';
import { supplierInvoiceRoutes } from './modules/accounting/supplier-invoices.routes';
import { supplierPaymentRoutes } from './modules/accounting/supplier-payments.routes';
import { supplierBalanceRoutes } from './modules/accounts/supplier-balances.routes';
import { auditEventRoutes } from './modules/audit/audit-events.routes';
import { ledgerVerificationRoutes } from './modules/audit/ledger-verification.routes';
import { manualEntryRoutes } from './modules/accounting/manual-entries.routes';
import { recurringEntryRoutes } from './modules/accounting/recurring-entries.routes';
import { approvalPolicyRoutes } from './modules/approvals/approval-policy.routes';
import { approvalRequestRoutes } from './modules/approvals/approval-requests.routes';
import { authRoutes } from './modules/auth/auth.routes';
import { branchRoutes } from './modules/enterprise/branches.routes';
import { clientProfileRoutes } from './modules/members/client-profiles.routes';
import { cashOperationRoutes } from './modules/members/cash-operations.routes';
import { configurationRoutes } from './modules/enterprise/configuration.routes';
import { enterpriseRoutes } from './modules/enterprise/enterprises.routes';
import { eventRoutes } from './modules/events/events.routes';
import { exerciceRoutes } from './modules/enterprise/exercices.routes';
import { resultAllocationRoutes } from './modules/enterprise/result-allocations.routes';
import { governanceRoutes } from './modules/enterprise/governance.routes';
import { monthEndRoutes } from './modules/enterprise/month-ends.routes';
import { endOfDayRoutes } from './modules/enterprise/end-of-days.routes';
import { branchDayRoutes } from './modules/cash/branch-days.routes';
import { ledgerRoutes } from './modules/accounts/ledger.routes';
import { reportingPackRoutes } from './modules/accounts/reporting-packs.routes';
import { loanApplicationRoutes } from './modules/loans/loan-applications.routes';
import { loanGuaranteeRoutes } from './modules/loans/loan-guarantees.routes';
import { collateralRegisterRoutes } from './modules/loans/collateral-register.routes';
import { loanRestructuringRoutes } from './modules/loans/loan-restructurings.routes';
import { loanProductRoutes } from './modules/loans/loan-products.routes';
import { usuryRateRoutes } from './modules/loans/usury-rates.routes';
import { loanRepaymentRoutes } from './modules/loans/loan-repayments.routes';
import { loanPrepaymentRoutes } from './modules/loans/loan-prepayments.routes';
import { loanRoutes } from './modules/loans/loans.routes';
import { memberAccountRoutes } from './modules/members/member-accounts.routes';
import { profileRoutes } from './modules/enterprise/profile.routes';
import { provisionRoutes } from './modules/loans/provisions.routes';
import { arrearsStatementRoutes } from './modules/loans/arrears-statement.routes';
import { loanRecoveryRoutes } from './modules/loans/loan-recoveries.routes';
import { writeOffReportRoutes } from './modules/loans/write-off-reports.routes';
import { loanOfficerRoutes } from './modules/loans/loan-officers.routes';
import { portfolioReportRoutes } from './modules/loans/portfolio-reports.routes';
import { prudentialRatioRoutes } from './modules/accounts/prudential-ratios.routes';
import { prudentialSettingsRoutes } from './modules/enterprise/prudential-settings.routes';
import { replayRoutes } from './modules/events/replays.routes';
import { savingsInterestRoutes } from './modules/members/savings-interest.routes';
import { savingsProductRoutes } from './modules/members/savings-products.routes';
import { shareRegisterRoutes } from './modules/shares/share-register.routes';
import { shareSubscriptionRoutes } from './modules/shares/share-subscriptions.routes';
import { shareTypeRoutes } from './modules/shares/share-types.routes';
import { shareWithdrawalRoutes } from './modules/shares/share-withdrawals.routes';
import { systemRoutes } from './modules/system/system.routes';
import { userRoutes } from './modules/auth/users.routes';
import { fixedAssetCategoryRoutes } from './modules/accounting/fixed-asset-categories.routes';
import { fixedAssetRoutes } from './modules/accounting/fixed-assets.routes';
import { fixedAssetRegisterRoutes } from './modules/accounting/fixed-asset-register.routes';
import { tillRoutes } from './modules/cash/tills.routes';
import { tillSessionRoutes } from './modules/cash/till-sessions.routes';
import { tillJournalRoutes } from './modules/cash/till-journal.routes';
import { tillTransferRoutes } from './modules/cash/till-transfers.routes';
import { vaultCountRoutes } from './modules/cash/vault-counts.routes';
import { differenceSettlementRoutes } from './modules/cash/difference-settlements.routes';
import { importRoutes } from './modules/imports/imports.routes';
import type { AnyRoute } from './route';

/** Every product route, module by module. The docs routes are derived from this list by the app. */
export const apiRoutes: readonly AnyRoute[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...enterpriseRoutes,
  ...branchRoutes,
  ...exerciceRoutes,
  ...monthEndRoutes,
  ...endOfDayRoutes,
  ...branchDayRoutes,
  ...resultAllocationRoutes,
  ...configurationRoutes,
  ...prudentialSettingsRoutes,
  ...profileRoutes,
  ...governanceRoutes,
  ...accountRoutes,
  ...ledgerRoutes,
  ...prudentialRatioRoutes,
  ...reportingPackRoutes,
  ...auditEventRoutes,
  ...ledgerVerificationRoutes,
  ...replayRoutes, // before eventRoutes, whose `/api/v1/events/{id}/` would match `replays/`
  ...eventRoutes,
  ...clientProfileRoutes,
  ...savingsProductRoutes,
  ...memberAccountRoutes,
  ...cashOperationRoutes,
  ...savingsInterestRoutes,
  ...loanProductRoutes,
  ...usuryRateRoutes,
  ...loanApplicationRoutes,
  ...loanRoutes,
  ...loanRepaymentRoutes,
  ...loanPrepaymentRoutes,
  ...loanGuaranteeRoutes,
  ...collateralRegisterRoutes,
  ...loanRestructuringRoutes,
  ...provisionRoutes,
  ...arrearsStatementRoutes,
  // Issue 30, write-off and recovery.
  ...loanRecoveryRoutes,
  ...writeOffReportRoutes,
  ...loanOfficerRoutes,
  ...portfolioReportRoutes,
  ...shareTypeRoutes,
  ...shareSubscriptionRoutes,
  ...shareWithdrawalRoutes,
  ...shareRegisterRoutes,
  ...approvalRequestRoutes,
  ...approvalPolicyRoutes,
  // Issue 28, general accounting: part 1, manual journal entries.
  ...manualEntryRoutes,
  ...recurringEntryRoutes,
  // Issue 28, general accounting, 5. suppliers.
  ...supplierRoutes,
  ...supplierInvoiceRoutes,
  ...supplierPaymentRoutes,
  ...supplierBalanceRoutes,
  // General accounting, part 4: fixed assets (issue 28).
  ...fixedAssetCategoryRoutes,
  ...fixedAssetRoutes,
  ...fixedAssetRegisterRoutes,
  // Issue 28, general accounting, part 6: banks and correspondents.
  ...bankAccountRoutes,
  ...treasuryTransferRoutes,
  ...bankStatementRoutes,
  // Issue 29, cash and the working day: tills, the vault and the till session.
  ...tillRoutes,
  ...tillSessionRoutes,
  ...tillJournalRoutes,
  // Issue 29, transfers between members and the liaison accounts.
  ...memberTransferRoutes,
  ...liaisonBalanceRoutes,
  ...standingOrderRoutes,
  ...interBranchRoutes,
  // Issue 29, cash between the vault and the tills.
  ...tillTransferRoutes,
  ...vaultCountRoutes,
  ...differenceSettlementRoutes,
  ...importRoutes,
];
