/**
 * The closed list of the codes the product answers with (docs/architecture.md §6): each code's kind, which the
 * API maps to its HTTP status, and its title, what the code means whatever the occurrence (the problem's
 * `detail` says the occurrence). `AppError` accepts only these codes, so a new refusal is added here first;
 * the codes the database functions raise are members too (test/db/error-codes.test.ts checks it).
 */
export type ErrorKind =
  | 'validation' // 400: the request is malformed or a field is invalid
  | 'unauthenticated' // 401
  | 'forbidden' // 403
  | 'not_found' // 404: absent, or not visible to this user
  | 'conflict' // 409: valid request, refused by the current state (insufficient funds, wrong step…)
  | 'precondition_failed' // 412: the resource changed since the version the client read (If-Match)
  | 'unprocessable' // 422: well-formed, but breaks a business rule regardless of state
  | 'rate_limited' // 429
  | 'unavailable'; // 503: a dependency (Temporal) could not be reached

/** Kinds only the HTTP layer answers (the router, the body reader, the server): never an AppError. */
type ProtocolKind =
  | 'method_not_allowed'
  | 'unsupported_media_type'
  | 'content_too_large'
  | 'headers_too_large'
  | 'internal'
  | 'not_implemented';

export type ProblemKind = ErrorKind | ProtocolKind;

export const errorCatalogue = {
  // request and protocol (router, middleware)
  invalid_request: { kind: 'validation', title: 'The request has invalid fields.' },
  malformed_json: { kind: 'validation', title: 'The request body is not valid JSON.' },
  too_deeply_nested: { kind: 'validation', title: 'The request body nests arrays and objects too deeply.' },
  invalid_value: { kind: 'validation', title: 'A value of the request cannot be stored.' },
  not_authenticated: { kind: 'unauthenticated', title: 'Sign in first.' },
  token_expired: { kind: 'unauthenticated', title: 'The token has expired.' },
  token_invalid: { kind: 'unauthenticated', title: 'The token is not valid.' },
  token_revoked: { kind: 'unauthenticated', title: 'The session was revoked: sign in again.' },
  token_reused: {
    kind: 'unauthenticated',
    title: 'The refresh token was already used: every session of its sign-in is revoked.',
  },
  session_expired: { kind: 'unauthenticated', title: 'The sign-in has reached its maximum lifetime.' },
  invalid_credentials: {
    kind: 'unauthenticated',
    title: 'The username or password is wrong, or the account is deactivated.',
  },
  metrics_token_required: { kind: 'unauthenticated', title: 'The metrics token is required.' },
  role_required: { kind: 'forbidden', title: 'None of the roles this requires is held at this scope.' },
  not_allowed: { kind: 'forbidden', title: 'Only an administrator may do this.' },
  csrf_failed: { kind: 'forbidden', title: 'The CSRF token of the sign-in is missing or wrong.' },
  not_found: { kind: 'not_found', title: 'The resource was not found.' },
  route_not_found: { kind: 'not_found', title: 'No resource at this path.' },
  page_not_found: { kind: 'not_found', title: 'The page does not exist.' },
  precondition_failed: {
    kind: 'precondition_failed',
    title: 'The resource changed since the version the client read.',
  },
  too_many_attempts: { kind: 'rate_limited', title: 'Too many attempts: wait before trying again.' },
  workflow_unavailable: {
    kind: 'unavailable',
    title: 'The workflow could not be reached in time: retry with the same Idempotency-Key.',
  },
  database_unavailable: { kind: 'unavailable', title: 'The database is unreachable.' },
  database_busy: { kind: 'unavailable', title: 'The database is too busy to answer in time.' },
  idempotency_key_reused: { kind: 'conflict', title: 'The Idempotency-Key was already used for a different request.' },
  // auth and users
  username_taken: { kind: 'conflict', title: 'The username is already taken.' },
  email_taken: { kind: 'conflict', title: "The email is already another user's." },
  invalid_invitation: { kind: 'validation', title: 'The invitation is unknown, already used or expired.' },
  user_has_password: {
    kind: 'conflict',
    title: 'The user has set a password already: an invitation is for a first password.',
  },
  user_deactivated: { kind: 'conflict', title: 'The user is deactivated.' },
  platform_grant_admin_only: {
    kind: 'unprocessable',
    title: 'Only the admin role can be granted for every enterprise.',
  },
  role_already_granted: { kind: 'conflict', title: 'The user already holds this role at this scope.' },
  cannot_deactivate_self: { kind: 'conflict', title: 'Administrators cannot deactivate themselves.' },
  // audit trail (issue 27, audit2): the auditor reads the whole enterprise's trail and chains
  auditor_grant_whole_enterprise: {
    kind: 'unprocessable',
    title: 'The auditor role is granted over a whole enterprise, not a branch.',
  },
  // enterprise
  enterprise_code_taken: { kind: 'conflict', title: 'An enterprise with this code already exists.' },
  enterprise_suspended: { kind: 'conflict', title: 'The enterprise is suspended: it records no money movement.' },
  branch_code_taken: { kind: 'conflict', title: 'The enterprise already has a branch with this code.' },
  branch_closed: { kind: 'conflict', title: 'The branch is closed.' },
  head_office_required: { kind: 'conflict', title: 'An enterprise keeps one head office.' },
  head_office_cannot_close: { kind: 'conflict', title: 'The head office cannot be closed.' },
  business_date_backwards: { kind: 'conflict', title: 'The business date only moves forward.' },
  organ_kind_taken: { kind: 'conflict', title: 'The enterprise already has an organ of this kind.' },
  chair_already_serving: { kind: 'conflict', title: 'The organ already has a serving chair.' },
  term_end_before_start: { kind: 'conflict', title: 'A term cannot end before it starts.' },
  term_already_ended: { kind: 'conflict', title: 'The term already ended.' },
  exercice_already_open: {
    kind: 'conflict',
    title: 'The accounting year is already open, or another one is still open.',
  },
  exercice_already_closed: { kind: 'conflict', title: 'The accounting year is already closed.' },
  exercice_overlap: { kind: 'conflict', title: 'The dates overlap another accounting year.' },
  exercice_code_taken: { kind: 'conflict', title: 'The enterprise already has an accounting year with this code.' },
  exercice_closing_running: { kind: 'conflict', title: 'The accounting year is being closed.' },
  exercice_closed: { kind: 'conflict', title: 'The accounting year is closed: nothing more can be posted to it.' },
  exercice_not_closed: { kind: 'conflict', title: 'The accounting year is not closed.' },
  previous_exercice_open: { kind: 'conflict', title: 'The accounting year before it is still open.' },
  next_exercice_not_open: { kind: 'conflict', title: 'The accounting year that follows must be open.' },
  no_exercice_for_date: { kind: 'conflict', title: 'No accounting year of the enterprise covers the date.' },
  no_exercice_for_period: { kind: 'unprocessable', title: 'No accounting year of the enterprise covers the period.' },
  period_not_over: { kind: 'conflict', title: 'The month is not over.' },
  period_not_ended: { kind: 'unprocessable', title: 'The period ends after the business date.' },
  month_end_not_done: { kind: 'conflict', title: 'A month end of the year is not done.' },
  previous_month_end_not_done: { kind: 'conflict', title: 'The month end before it is not done.' },
  month_end_step_pending: { kind: 'conflict', title: 'A step of the month end is not done.' },
  year_end_not_provisioned: { kind: 'conflict', title: "No provisioning run has completed as of the year's last day." },
  exercice_result_allocated: {
    kind: 'conflict',
    title: "The year's result is allocated: cancel the allocation first.",
  },
  result_already_allocated: { kind: 'conflict', title: "The year's result is allocated already." },
  result_not_in_13: { kind: 'conflict', title: "The result account does not hold the year's result." },
  result_allocation_cancelled: { kind: 'conflict', title: 'The allocation is cancelled already.' },
  prior_losses_above_balance: {
    kind: 'unprocessable',
    title: 'prior_losses is above what the report à nouveau débiteur holds.',
  },
  prior_losses_first: { kind: 'unprocessable', title: 'A profit first clears the prior losses.' },
  prior_losses_not_cleared: { kind: 'unprocessable', title: 'Prior losses remain to be cleared.' },
  reserve_floor_not_met: { kind: 'unprocessable', title: 'A reserve is below its statutory share of the surplus.' },
  optional_reserves_above_cap: { kind: 'unprocessable', title: 'optional_reserves is above its cap.' },
  share_interest_above_cap: { kind: 'unprocessable', title: 'share_interest is above its cap.' },
  nothing_to_distribute: { kind: 'unprocessable', title: 'The year made a loss: nothing is distributed.' },
  reserve_insufficient: { kind: 'unprocessable', title: 'The reserve does not hold that much.' },
  no_result_to_allocate: { kind: 'unprocessable', title: "The year's result is zero." },
  allocation_not_equal_to_result: { kind: 'unprocessable', title: 'The amounts do not add up to the result.' },
  // period controls (issue 27): month ends in order, the first in the first open year
  month_end_out_of_order: { kind: 'conflict', title: "A month end before the enterprise's first one cannot run." },
  month_end_before_cut_over: {
    kind: 'conflict',
    title: "The month ended before the go-live import's cut-over: its books are the old system's.",
  },
  first_month_end_outside_first_year: {
    kind: 'conflict',
    title: 'The first month end must be a month of the first open accounting year.',
  },
  // accounts
  plan_code_taken: { kind: 'conflict', title: 'An account plan with this code already exists.' },
  account_code_taken: { kind: 'conflict', title: 'The chart already has an account with this code.' },
  account_code_overlaps: { kind: 'conflict', title: 'Another account already extends the parent along this code.' },
  account_has_children: { kind: 'conflict', title: 'The account has sub-accounts.' },
  account_has_postings: { kind: 'conflict', title: 'The account has postings.' },
  account_unknown: { kind: 'unprocessable', title: "The account is not in the enterprise's chart." },
  account_inactive: { kind: 'unprocessable', title: 'The account is deactivated.' },
  account_not_leaf: { kind: 'unprocessable', title: 'The account has sub-accounts: post to one of them.' },
  account_used_by_rule: { kind: 'conflict', title: 'An accounting rule in force posts to the account.' },
  system_account: { kind: 'conflict', title: 'The account is a system account.' },
  plan_account: { kind: 'conflict', title: 'The account belongs to the plan.' },
  parent_not_leaf: { kind: 'conflict', title: 'The parent account has accounts of the plan below it.' },
  rule_changed_concurrently: { kind: 'conflict', title: 'The rule was changed at the same time: reload it.' },
  rule_inactive: { kind: 'conflict', title: 'The accounting rule of the event is not in force.' },
  accrual_rule_unsupported: {
    kind: 'conflict',
    title: 'The accrual rule does not have the one leg the month end needs.',
  },
  reporting_pack_not_stored: { kind: 'conflict', title: 'The pack is not stored yet.' },
  reporting_pack_superseded: { kind: 'conflict', title: 'A later version of the pack exists.' },
  reporting_pack_current: { kind: 'conflict', title: "The pack's figures stand: nothing to reissue." },
  // issue 28, manual journal entries (part 1): drafts, their refusals, reversal and the opening entry
  manual_entry_unbalanced: { kind: 'unprocessable', title: 'The entry does not balance, in total or within a branch.' },
  manual_entry_subledger_account: {
    kind: 'unprocessable',
    title: 'The account is kept by a subledger: only its own operations move it.',
  },
  manual_entry_not_editable: { kind: 'conflict', title: 'The entry is no longer a draft.' },
  manual_entry_changed: { kind: 'conflict', title: 'The entry changed after it was submitted.' },
  manual_entry_not_posted: { kind: 'conflict', title: 'Only a posted entry is reversed.' },
  manual_entry_reversed: { kind: 'conflict', title: 'The entry already has a reversing entry.' },
  opening_entry_exists: { kind: 'conflict', title: 'The enterprise already has a posted opening entry.' },
  // issue 28, part 3 (gl-reports): the accountant's reports
  ledger_period_across_years: {
    kind: 'unprocessable',
    title: 'The period of the report must lie within one accounting year.',
  },
  report_too_large: {
    kind: 'unprocessable',
    title: 'The report has more lines than a JSON answer holds: narrow it, or download it as CSV or XLSX.',
  },
  // general accounting, 5. suppliers and expenses (issue 28)
  supplier_tax_id_taken: { kind: 'conflict', title: 'Another supplier of the enterprise has this tax id (NIU).' },
  supplier_accounts_full: { kind: 'conflict', title: 'Every supplier account under 40110 is taken.' },
  supplier_inactive: { kind: 'conflict', title: 'The supplier is deactivated.' },
  supplier_invoice_number_taken: { kind: 'conflict', title: 'The supplier already has an invoice with this number.' },
  supplier_invoice_account_refused: {
    kind: 'unprocessable',
    title: 'An invoice line posts to an expense (class 6) or a recoverable tax (430) only.',
  },
  supplier_paying_account_refused: {
    kind: 'unprocessable',
    title: 'A supplier is paid from a treasury account (class 5) only.',
  },
  supplier_payment_exceeds_due: {
    kind: 'conflict',
    title: 'The payment settles more than remains to pay on the invoice.',
  },
  // issue 28, part 6 (banks): banks and correspondents
  bank_account_number_taken: { kind: 'conflict', title: 'Another bank account of the enterprise has this number.' },
  bank_accounts_full: { kind: 'conflict', title: 'Every bank account under the 560 leaf is taken.' },
  bank_account_unknown: {
    kind: 'unprocessable',
    title: 'The bank account is not one of the enterprise, or of the branch.',
  },
  bank_account_inactive: { kind: 'unprocessable', title: 'The bank account is deactivated: it takes no transfer.' },
  treasury_transfer_same_account: {
    kind: 'unprocessable',
    title: 'A transfer moves money between two different treasury accounts.',
  },
  bank_statement_invalid: {
    kind: 'validation',
    title: 'The bank statement file is refused: the error names its row and column.',
  },
  bank_statement_line_matched: { kind: 'conflict', title: 'The statement line or the ledger line is matched already.' },
  bank_statement_match_refused: {
    kind: 'unprocessable',
    title: "The ledger line is not of the statement's bank account, or not of the same amount.",
  },
  bank_parent_account_refused: {
    kind: 'unprocessable',
    title: 'A bank account is opened under a leaf of 560 (comptes à vue nostri) only.',
  },
  // general accounting, part 4: fixed assets (issue 28)
  fixed_asset_category_taken: {
    kind: 'conflict',
    title: 'The enterprise already has a fixed-asset category of this name.',
  },
  fixed_asset_disposed: { kind: 'conflict', title: 'The fixed asset was disposed of already.' },
  fixed_asset_depreciated_later: {
    kind: 'conflict',
    title: 'Depreciation of the asset is booked beyond the day before this date.',
  },
  // issue 28, part 2 (off-balance): class 9 entries stand apart from the balance sheet's
  off_balance_mixed: {
    kind: 'unprocessable',
    title: 'An off-balance entry (class 9) may not have lines of the other classes.',
  },
  // members
  member_already_registered: { kind: 'conflict', title: 'A member with this identity document is already registered.' },
  member_not_active: { kind: 'conflict', title: 'The member is not active.' },
  member_left: { kind: 'conflict', title: 'The member has left the cooperative.' },
  member_has_open_accounts: { kind: 'conflict', title: 'The member still has open accounts.' },
  member_has_shares: { kind: 'conflict', title: 'The member still holds shares.' },
  member_refund_pending: { kind: 'conflict', title: 'A withdrawal of the member is in notice or awaits its refund.' },
  invalid_status_transition: { kind: 'conflict', title: 'The status does not allow this change.' },
  account_frozen: { kind: 'conflict', title: 'The account is frozen.' },
  account_closed: { kind: 'conflict', title: 'The account is closed.' },
  account_not_open: { kind: 'conflict', title: 'The account is not open.' },
  account_pledged: { kind: 'conflict', title: 'The account is pledged as a guarantee.' },
  balance_not_zero: { kind: 'conflict', title: 'The account still holds money.' },
  insufficient_funds: { kind: 'conflict', title: 'The available balance is not enough.' },
  withdrawals_not_allowed: { kind: 'conflict', title: "The account's product allows no withdrawal." },
  product_code_taken: { kind: 'conflict', title: 'A product with this code already exists.' },
  product_inactive: { kind: 'conflict', title: 'The product is deactivated.' },
  product_has_accounts: { kind: 'conflict', title: 'Accounts of the product hold deposits.' },
  rate_change_in_paid_period: { kind: 'conflict', title: "Interest is paid through a later day than the new rate's." },
  rate_change_not_after_latest: { kind: 'conflict', title: "A new rate applies from a day after the latest rate's." },
  no_payout_account: {
    kind: 'conflict',
    title: 'The member has no open demand-deposit account to receive the payout.',
  },
  not_a_term_deposit: { kind: 'conflict', title: 'The account is not a term deposit.' },
  term_deposit_matured: { kind: 'conflict', title: 'The term deposit reached its maturity.' },
  // loans
  application_closed: { kind: 'conflict', title: "The application's approval has ended." },
  wrong_step: { kind: 'conflict', title: 'The application is at another step.' },
  submitter_cannot_decide: { kind: 'conflict', title: 'The user who submitted the application cannot decide it.' },
  same_person_twice: { kind: 'conflict', title: 'The user already decided another step of this application.' },
  nothing_to_send_back: { kind: 'conflict', title: 'The first step cannot send the application back.' },
  comment_required: { kind: 'conflict', title: 'The decision needs a comment saying why.' },
  decision_in_progress: { kind: 'conflict', title: 'Another decision is being recorded: try again.' },
  not_submitter: { kind: 'forbidden', title: 'Only the user who submitted the application may withdraw it.' },
  approver_cannot_disburse: { kind: 'forbidden', title: 'The user who granted the loan cannot also pay it out.' },
  amount_out_of_bounds: { kind: 'unprocessable', title: "The amount is outside the product's bounds." },
  term_periods_out_of_bounds: { kind: 'unprocessable', title: "The term is outside the product's bounds." },
  grace_periods_out_of_bounds: { kind: 'unprocessable', title: "The grace periods are outside the product's bounds." },
  cap_share_capital: {
    kind: 'conflict',
    title: "The member's credit would be above the limit of the share capital (COBAC R-2017/08).",
  },
  cap_related_party: {
    kind: 'conflict',
    title: "The related party's credit would be above its limit (COBAC R-2017/08).",
  },
  loan_not_active: { kind: 'conflict', title: 'The loan is not active.' },
  loan_not_doubtful: { kind: 'conflict', title: 'Only a doubtful loan is written off.' },
  loan_not_awaiting_disbursement: { kind: 'conflict', title: 'The loan does not await its disbursement.' },
  loan_not_disbursed: { kind: 'conflict', title: 'The loan has not been disbursed.' },
  loan_closed: { kind: 'conflict', title: 'The loan is closed.' },
  loan_written_off: { kind: 'conflict', title: 'The loan was written off.' },
  write_off_approval_required: {
    kind: 'unprocessable',
    title: "The write-off of a related party's loan needs the recorded approval.",
  },
  exceeds_total_due: { kind: 'conflict', title: 'The amount is above what can be repaid at the business date.' },
  date_not_business_date: { kind: 'unprocessable', title: 'The date must be the business date.' },
  as_of_after_business_date: { kind: 'unprocessable', title: 'The date is after the business date.' },
  provisioning_date_passed: { kind: 'conflict', title: 'Provisions were already computed for a later date.' },
  guarantee_pending: { kind: 'conflict', title: 'The guarantee is pending.' },
  guarantee_refused: { kind: 'conflict', title: 'The guarantee was refused.' },
  confirmation_pending: { kind: 'conflict', title: 'A change of the guarantee awaits its confirmation.' },
  // shares
  share_type_limit: { kind: 'conflict', title: 'An enterprise has at most the three share types 001, 002 and 003.' },
  share_type_code_taken: { kind: 'conflict', title: 'The enterprise already has this share type.' },
  share_type_in_use: { kind: 'conflict', title: 'Members hold shares of this type.' },
  share_type_inactive: { kind: 'conflict', title: 'The share type is deactivated.' },
  not_a_founder: { kind: 'conflict', title: 'Founder shares are for members named founders.' },
  above_maximum_shares: { kind: 'conflict', title: "A member would hold more than the type's maximum." },
  below_minimum_shares: { kind: 'unprocessable', title: "A member would hold fewer than the type's minimum." },
  initial_payment_out_of_bounds: {
    kind: 'unprocessable',
    title: 'The initial payment is not the one the type requires.',
  },
  subscription_paid_up: { kind: 'conflict', title: 'The subscription is fully paid.' },
  exceeds_unpaid: { kind: 'conflict', title: 'The amount is above what remains to be paid.' },
  shares_not_withdrawable: { kind: 'conflict', title: 'Shares of this type cannot be withdrawn.' },
  not_enough_shares: { kind: 'conflict', title: 'Not so many shares of the subscription can be withdrawn.' },
  seniority_not_reached: { kind: 'conflict', title: 'The shares do not have the seniority to be withdrawn yet.' },
  withdrawal_not_in_notice: { kind: 'conflict', title: 'The withdrawal is not in its notice period.' },
  withdrawal_closed: { kind: 'conflict', title: "The withdrawal's process has ended." },
  refund_not_owed: { kind: 'conflict', title: 'No refund of the withdrawal is owed.' },
  already_refunded: { kind: 'conflict', title: 'The withdrawal was refunded already.' },
  refund_already_extended: { kind: 'conflict', title: 'The refund period was extended once already.' },
  // approvals: four eyes and the approver's inbox (issue 27)
  approval_own_request: { kind: 'forbidden', title: 'The maker of a request cannot decide it.' },
  approval_role_required: { kind: 'forbidden', title: 'Deciding this request requires another role.' },
  approval_request_closed: { kind: 'conflict', title: 'The request has been decided or has expired.' },
  approval_change_mixed: { kind: 'unprocessable', title: 'A change needing a second person is requested alone.' },
  // issue 28, manual journal entries (part 1): an operation that is never done by one person alone
  approval_always_four_eyes: { kind: 'unprocessable', title: 'This operation is always under four eyes.' },
  // issue 28, recurring manual entries (docs/domain.md §12.7)
  recurring_entry_periods: { kind: 'unprocessable', title: 'The last period of the model comes before its first.' },
  recurring_entry_inactive: { kind: 'conflict', title: 'The recurring entry is deactivated.' },
  recurring_entry_not_due: {
    kind: 'unprocessable',
    title: 'The model is not due in that period, or not yet by the business date.',
  },
  // issue 29, tills, the vault and the till session (docs/domain.md §13.1)
  till_code_taken: { kind: 'conflict', title: 'The branch already has a till of this code.' },
  till_cashier_refused: { kind: 'unprocessable', title: "The user is no cashier of the till's branch." },
  till_cashier_taken: { kind: 'conflict', title: 'The cashier is assigned another till.' },
  till_is_vault: { kind: 'conflict', title: 'The vault is neither assigned nor deactivated.' },
  till_inactive: { kind: 'conflict', title: 'The till is deactivated.' },
  tills_full: { kind: 'conflict', title: 'The 999 till accounts of the enterprise are taken.' },
  till_not_assigned: { kind: 'conflict', title: 'No till is assigned to the user.' },
  till_session_open: { kind: 'conflict', title: 'A session is open on the till.' },
  till_session_not_yours: { kind: 'forbidden', title: "Only the session's cashier or the branch head closes it." },
  till_session_required: {
    kind: 'conflict',
    title: "The branch is under till control: the operator's till session must be open.",
  },
  business_date_till_sessions_open: {
    kind: 'conflict',
    title: 'Till sessions of the enterprise are open: the business date stays.',
  },
  // Issue 29, transfers between members, standing orders and the liaison accounts.
  transfer_account_invalid: {
    kind: 'unprocessable',
    title: 'The receiving account is not another member account of the enterprise.',
  },
  // Issue 29, the branch's day and the end of day (docs/domain.md §13.3)
  branch_day_blocked: { kind: 'conflict', title: "The branch's day cannot close yet: the errors list what holds it." },
  branch_day_not_business_date: { kind: 'unprocessable', title: "A branch closes the business date's day, no other." },
  end_of_day_not_business_date: {
    kind: 'unprocessable',
    title: 'The end of day runs for the business date, no other.',
  },
  day_closed: { kind: 'conflict', title: 'The date is in a closed day: the end of day has run for it.' },
  // Issue 29, the leftovers of issue 28 (general accounting): a supplier's invoice or payment reversed.
  supplier_book_reversed: { kind: 'conflict', title: 'The invoice or payment is already reversed.' },
  supplier_invoice_paid: { kind: 'conflict', title: 'Payments settle this invoice: reverse them first.' },
  standing_order_not_pending: { kind: 'conflict', title: 'The standing order no longer waits for an approval.' },
  standing_order_inactive: {
    kind: 'conflict',
    title: 'The standing order is cancelled or rejected, or still waits for its approval.',
  },
  // Issue 29, serving members across branches.
  inter_branch_service_off: {
    kind: 'conflict',
    title: 'The enterprise does not allow serving members of another branch.',
  },
  inter_branch_branch_invalid: {
    kind: 'unprocessable',
    title: "The counter's branch is not a branch of the account's enterprise.",
  },
  inter_branch_same_branch: {
    kind: 'unprocessable',
    title: "The account is of the counter's branch: a local deposit or withdrawal serves it.",
  },
  // issue 29, cash between the vault and the tills, differences and their settlement (docs/domain.md §13.2)
  till_transfer_till_refused: { kind: 'unprocessable', title: 'Cash moves between the vault and an active till.' },
  till_transfer_side_refused: {
    kind: 'forbidden',
    title: "The vault's side of a transfer is the branch head's, a till's side its cashier's.",
  },
  till_transfer_session_closed: { kind: 'conflict', title: "The till's session is not open." },
  till_transfer_count_differs: { kind: 'unprocessable', title: "The count does not add up to the transfer's amount." },
  till_transfer_funds_short: { kind: 'conflict', title: "The giver's book balance is less than the amount." },
  till_transfer_not_pending: { kind: 'conflict', title: 'The transfer is confirmed or cancelled already.' },
  till_transfer_own: { kind: 'forbidden', title: 'Nobody confirms their own transfer.' },
  till_transfer_not_maker: { kind: 'forbidden', title: 'Only the maker of a transfer cancels it.' },
  vault_counted: { kind: 'conflict', title: 'The vault of the branch is counted for the business date already.' },
  cash_difference_unknown: {
    kind: 'unprocessable',
    title: 'The entry is no difference of a till session or of a vault count.',
  },
  cash_settlement_mode_refused: {
    kind: 'unprocessable',
    title: 'A shortage is recovered or written off, an excess written off or returned.',
  },
  cash_difference_settled: { kind: 'conflict', title: 'The difference is settled already.' },
  // Issue 30, write-off and recovery: a recovery is taken only on a written-off loan.
  loan_not_written_off: { kind: 'conflict', title: 'Only a written-off loan takes a recovery.' },
  // Issue 30, guarantors and collateral (docs/domain.md §14.4)
  guarantee_held: {
    kind: 'conflict',
    title: 'The guarantee holds an account: it is ended and added again, not revalued.',
  },
  guarantee_not_in_force: { kind: 'conflict', title: 'The guarantee is not in force.' },
  // issue 30, portfolio reports and loan officers
  loan_officer_not_in_branch: {
    kind: 'unprocessable',
    title: "A loan officer is an active user with a role in the loan's branch.",
  },
  loan_officer_unchanged: { kind: 'conflict', title: 'The loan already has this loan officer.' },
  loan_officer_loan_ended: { kind: 'conflict', title: 'The loan is closed or written off.' },
  // Issue 30, credit insurance and the usury rate (docs/domain.md §14.6).
  teg_above_usury_rate: { kind: 'unprocessable', title: 'The TEG exceeds the usury rate in force at the date.' },
  usury_rate_exists: { kind: 'conflict', title: 'The enterprise has a usury rate from that date already.' },
  // Issue 30, restructuring (R-2017/07 Arts. 11–14, docs/domain.md §14.2).
  annual_rate_out_of_bounds: { kind: 'unprocessable', title: 'The rate is outside its bounds.' },
  restructuring_pending: { kind: 'conflict', title: 'The loan already has a restructuring awaiting its decision.' },
  restructuring_closed: { kind: 'conflict', title: 'The restructuring has been decided or has expired.' },
  nothing_to_restructure: { kind: 'conflict', title: 'The loan has no principal left to fall due to restructure.' },
  // issue 30, early repayment (docs/domain.md §14.1)
  prepayment_below_dues: {
    kind: 'unprocessable',
    title: 'A prepayment pays the dues and the fee first: the amount must exceed them.',
  },
  prepayment_settles_loan: {
    kind: 'conflict',
    title: 'The amount would settle the loan: a payoff is a separate operation.',
  },
  payoff_amount_differs: {
    kind: 'unprocessable',
    title: 'A payoff is the payoff quote at the business date, to the franc.',
  },
  // Issue 31, go-live import (first slice: templates, upload, validation): a file that cannot be read as its kind's
  // rows.
  import_file_invalid: {
    kind: 'validation',
    title: "The uploaded file is not an XLSX or CSV file of the kind's template.",
  },
  // Issue 31, go-live import, the pipeline (part A): apply and cancel under four eyes.
  import_not_validated: {
    kind: 'conflict',
    title: 'The import is not validated (or is already applied): validate it, without a problem, first.',
  },
  import_apply_not_uploader: {
    kind: 'conflict',
    title: "Apply is asked by one who uploaded the import's files; another person decides.",
  },
  import_tie_out_difference: {
    kind: 'conflict',
    title: 'The tie-out shows differences: correct the files, or give the reason direction accepts them for.',
  },
  import_applied: { kind: 'conflict', title: 'The import is applied (or being applied): it is not validated again.' },
  import_not_cancellable: {
    kind: 'conflict',
    title: 'The import is not applied, or the enterprise has operations since: it can no longer be cancelled.',
  },
  // protocol: answered by the router and the HTTP server, never raised as an AppError
  method_not_allowed: { kind: 'method_not_allowed', title: 'The method is not allowed on this path.' },
  unsupported_media_type: { kind: 'unsupported_media_type', title: 'Request bodies must be JSON.' },
  payload_too_large: { kind: 'content_too_large', title: 'The request body is too large.' },
  headers_too_large: { kind: 'headers_too_large', title: 'The request headers are too large.' },
  internal_error: { kind: 'internal', title: 'An unexpected error occurred: quote the request id to support.' },
  not_implemented: { kind: 'not_implemented', title: 'The method is not supported.' },
} as const satisfies Record<string, { kind: ProblemKind; title: string }>;

/** Every code the product answers with. */
export type ProblemCode = keyof typeof errorCatalogue;

/** The kind of a code, by the catalogue. */
export type KindOf<C extends ProblemCode> = (typeof errorCatalogue)[C]['kind'];

/** The codes an AppError (and so a refusal) can carry: those of a kind the domain speaks. */
export type ErrorCode = { [C in ProblemCode]: KindOf<C> extends ErrorKind ? C : never }[ProblemCode];

/** True for a code of the catalogue. */
export const isProblemCode = (code: unknown): code is ProblemCode =>
  typeof code === 'string' && Object.hasOwn(errorCatalogue, code);

/** True for a code an AppError can carry (a code read back from outside: a workflow's failure, the database). */
export const isErrorCode = (code: unknown): code is ErrorCode =>
  isProblemCode(code) && !protocolKinds.has(errorCatalogue[code].kind);

const protocolKinds: ReadonlySet<ProblemKind> = new Set<ProtocolKind>([
  'method_not_allowed',
  'unsupported_media_type',
  'content_too_large',
  'headers_too_large',
  'internal',
  'not_implemented',
]);

/** The kind of a catalogue code. */
export const kindOf = <C extends ErrorCode>(code: C): KindOf<C> => errorCatalogue[code].kind as KindOf<C>;
