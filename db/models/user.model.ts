import { BaseModel } from './base.model';

export class User extends BaseModel {
  static override tableName = 'users';

  username!: string;
  passwordHash!: string;
  fullName!: string;
  email!: string;
  isActive!: boolean;
  lastLoginAt!: Date | null;

  /** The password hash never leaves the model, whatever serialises it. */
  override $formatJson(json: Record<string, unknown>): Record<string, unknown> {
    const formatted = super.$formatJson(json);
    delete formatted.passwordHash;
    return formatted;
  }
}
