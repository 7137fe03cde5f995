// The embedded identity provider's users (migration 031): added, re-passworded, removed and
// listed by `npm run user`, checked by the sign-in page and the password grant (through the
// provider's checkPassword, which limits failures).
import type { Store } from '../../store/database.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { recordUser } from '../../store/users.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { decoyHash, hashPassword, verifyPassword } from './passwords.ts';

export interface IdentityUser {
  username: string;
  email: string;
  firstName: string;
  lastName: string;
  admin: boolean;
}

export interface NewUser {
  username: string;
  password: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  admin?: boolean;
}

/** Usernames as the platform uses them: short, lower-case, path-safe. */
export const usernamePattern = /^[a-z0-9][a-z0-9._-]{0,63}$/;

export class UserError extends Error {}

type Row = {
  username: string;
  email: string;
  first_name: string;
  last_name: string;
  admin: boolean | number;
};

const userOf = (row: Row): IdentityUser => ({
  username: row.username,
  email: row.email,
  firstName: row.first_name,
  lastName: row.last_name,
  admin: Boolean(row.admin),
});

const columns = ['username', 'email', 'first_name', 'last_name', 'admin'] as const;

export class UserDirectory {
  private readonly store: Store;
  private readonly emailDomain: string;
  private readonly now: () => number;
  constructor(store: Store, emailDomain: string, now: () => number = Date.now) {
    this.store = store;
    this.emailDomain = emailDomain;
    this.now = now;
  }

  async add(user: NewUser): Promise<IdentityUser> {
    if (!usernamePattern.test(user.username))
      throw new UserError(
        `"${user.username}" is not a username: lower-case letters, digits, '.', '_' or '-', at most 64`,
      );
    checkPassword(user.password);
    const now = this.now();
    const row = {
      username: user.username,
      email: user.email ?? `${user.username}@${this.emailDomain}`,
      first_name: user.firstName ?? user.username,
      last_name: user.lastName ?? '',
      password_hash: await hashPassword(user.password),
      admin: user.admin ?? false,
      created_at: now,
      updated_at: now,
    };
    try {
      await this.store.db.insertInto('idp_users').values(row).execute();
    } catch (error) {
      if (isUniqueViolation(error)) throw new UserError(`user ${user.username} already exists`);
      throw error;
    }
    // A platform user from now on, not only once signed in: an administrator may set the plan or
    // share with someone added by `npm run user add` before their first sign-in.
    await recordUser(
      this.store.db,
      qualifiedUsername(row.username, this.emailDomain),
      { email: row.email, firstName: row.first_name, lastName: row.last_name },
      now,
    );
    return userOf(row);
  }

  async setPassword(username: string, password: string): Promise<void> {
    checkPassword(password);
    const result = await this.store.db
      .updateTable('idp_users')
      .set({ password_hash: await hashPassword(password), updated_at: this.now() })
      .where('username', '=', username)
      .executeTakeFirst();
    if (Number(result.numUpdatedRows) === 0) throw new UserError(`no user ${username}`);
    // A new password ends every sign-in made with the old one.
    await this.store.db.deleteFrom('idp_sessions').where('username', '=', username).execute();
  }

  async remove(username: string): Promise<void> {
    await this.store.db.deleteFrom('idp_sessions').where('username', '=', username).execute();
    const result = await this.store.db
      .deleteFrom('idp_users')
      .where('username', '=', username)
      .executeTakeFirst();
    if (Number(result.numDeletedRows) === 0) throw new UserError(`no user ${username}`);
  }

  async list(): Promise<IdentityUser[]> {
    const rows = await this.store.db
      .selectFrom('idp_users')
      .select(columns)
      .orderBy('username')
      .execute();
    return rows.map(userOf);
  }

  async find(username: string): Promise<IdentityUser | undefined> {
    const row = await this.store.db
      .selectFrom('idp_users')
      .select(columns)
      .where('username', '=', username)
      .executeTakeFirst();
    return row ? userOf(row) : undefined;
  }

  /**
   * The user whose password this is, or undefined (a wrong name and a wrong password cost the
   * same). Sign-ins call it through IdentityProvider.checkPassword, which limits failed ones.
   */
  async check(username: string, password: string): Promise<IdentityUser | undefined> {
    const row = await this.store.db
      .selectFrom('idp_users')
      .select([...columns, 'password_hash'])
      .where('username', '=', username)
      .executeTakeFirst();
    const matches = await verifyPassword(password, row?.password_hash ?? decoyHash);
    return row && matches ? userOf(row) : undefined;
  }
}

function checkPassword(password: string): void {
  if (password.length < 8) throw new UserError('a password needs at least 8 characters');
  if (password.length > 1024) throw new UserError('a password may have at most 1024 characters');
}
