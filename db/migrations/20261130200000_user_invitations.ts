import type { Knex } from 'knex';

/**
 * Staff accounts created by an administrator (POST /api/v1/auth/users/) start without a password: the answer
 * carries a one-time invitation token with which the person sets theirs. Only its SHA-256 is kept (a 256-bit
 * random token needs no slow hash), unique so that a token finds its one user; both are cleared when it is used.
 */
export async function up(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.string('invitation_token_hash', 64).unique();
    table.timestamp('invitation_expires_at', { useTz: true });
    table.check('(invitation_token_hash IS NULL) = (invitation_expires_at IS NULL)', [], 'users_invitation_complete');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('users', (table) => {
    table.dropChecks('users_invitation_complete');
    table.dropUnique(['invitation_token_hash']);
    table.dropColumns('invitation_token_hash', 'invitation_expires_at');
  });
}
