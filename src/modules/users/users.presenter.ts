import type { Selectable } from 'kysely';
import type { UsersTable } from '../../db/schema.js';
import type { User } from './users.schemas.js';

export type UserRow = Selectable<UsersTable>;

/** Row → response. The password hash never leaves this module's rows. */
export function presentUser(row: UserRow): User {
  return {
    id: row.id,
    version: row.version,
    name: row.name,
    email: row.email,
    role: row.role as User['role'],
    status: row.status as User['status'],
    lastLoginAt: row.last_login_at,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}
