import { BaseModel } from './base.model';

export class User extends BaseModel {
  static override tableName = 'users';

  username!: string;
  passwordHash!: string;
  fullName!: string;
  email!: string;
  isActive!: boolean;
  lastLoginAt!: Date | null;
  /** An account created by an administrator, until its person sets a password: the token's SHA-256 and its end. */
  invitationTokenHash!: string | null;
  invitationExpiresAt!: Date | null;

  /** The password hash never leaves the model, whatever serialises it. */
  override $formatJson(json: Record<string, unknown>): Record<string, unknown> {
    const formatted = super.$formatJson(json);
    delete formatted.passwordHash;
    delete formatted.invitationTokenHash;
    return formatted;
  }
}
