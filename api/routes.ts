import { accountRoutes } from './modules/accounts.routes';
import { authRoutes } from './modules/auth.routes';
import { branchRoutes } from './modules/branches.routes';
import { clientProfileRoutes } from './modules/client-profiles.routes';
import { cashOperationRoutes } from './modules/cash-operations.routes';
import { configurationRoutes } from './modules/configuration.routes';
import { enterpriseRoutes } from './modules/enterprises.routes';
import { eventRoutes } from './modules/events.routes';
import { exerciceRoutes } from './modules/exercices.routes';
import { governanceRoutes } from './modules/governance.routes';
import { ledgerRoutes } from './modules/ledger.routes';
import { loanApplicationRoutes } from './modules/loan-applications.routes';
import { loanGuaranteeRoutes } from './modules/loan-guarantees.routes';
import { loanProductRoutes } from './modules/loan-products.routes';
import { loanRepaymentRoutes } from './modules/loan-repayments.routes';
import { loanRoutes } from './modules/loans.routes';
import { memberAccountRoutes } from './modules/member-accounts.routes';
import { profileRoutes } from './modules/profile.routes';
import { provisionRoutes } from './modules/provisions.routes';
import { replayRoutes } from './modules/replays.routes';
import { savingsProductRoutes } from './modules/savings-products.routes';
import { shareRegisterRoutes } from './modules/share-register.routes';
import { shareSubscriptionRoutes } from './modules/share-subscriptions.routes';
import { shareTypeRoutes } from './modules/share-types.routes';
import { shareWithdrawalRoutes } from './modules/share-withdrawals.routes';
import { systemRoutes } from './modules/system.routes';
import { userRoutes } from './modules/users.routes';
import type { AnyRoute } from './route';

/** Every product route, module by module. The docs routes are derived from this list by the app. */
export const apiRoutes: readonly AnyRoute[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...enterpriseRoutes,
  ...branchRoutes,
  ...exerciceRoutes,
  ...configurationRoutes,
  ...profileRoutes,
  ...governanceRoutes,
  ...accountRoutes,
  ...ledgerRoutes,
  ...replayRoutes, // before eventRoutes, whose `/api/v1/events/{id}/` would match `replays/`
  ...eventRoutes,
  ...clientProfileRoutes,
  ...savingsProductRoutes,
  ...memberAccountRoutes,
  ...cashOperationRoutes,
  ...loanProductRoutes,
  ...loanApplicationRoutes,
  ...loanRoutes,
  ...loanRepaymentRoutes,
  ...loanGuaranteeRoutes,
  ...provisionRoutes,
  ...shareTypeRoutes,
  ...shareSubscriptionRoutes,
  ...shareWithdrawalRoutes,
  ...shareRegisterRoutes,
];
