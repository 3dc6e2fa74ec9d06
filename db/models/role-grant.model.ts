import type { Knex } from 'knex';
import type { Role } from '../../domain/access';
import { BaseModel } from './base.model';

export class RoleGrant extends BaseModel {
  static override tableName = 'role_grants';

  userId!: string;
  role!: Role;
  enterpriseId!: string | null;
  branchId!: string | null;
  grantedBy!: string | null;
  revokedAt!: Date | null;
  revokedBy!: string | null;

  /** Grants in force (not revoked) of the given users, oldest first. */
  static activeOf(knex: Knex, userIds: readonly string[]) {
    return this.query(knex).whereIn('user_id', userIds).whereNull('revoked_at').orderBy('created_at');
  }
}
