/**
 * The ledger's reads live in activities/accounts/ledger.queries.ts; the events module still imports them from here
 * (its routes file is not this module's to change in the same step).
 */
export { ledgerLines } from '../../../activities/accounts/ledger.queries';
