import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from './schema.ts';

export interface UserAttributes {
  email?: string;
  firstName?: string;
  lastName?: string;
}

/**
 * Records an identity the platform has seen (qualified username) and returns its row id.
 * Attributes given overwrite the stored ones; one statement, safe under concurrent callers.
 */
export async function recordUser(
  db: Kysely<Database>,
  username: string,
  attributes: UserAttributes = {},
  now = Date.now(),
): Promise<string> {
  const changes = {
    ...(attributes.email !== undefined ? { email: attributes.email } : {}),
    ...(attributes.firstName !== undefined ? { first_name: attributes.firstName } : {}),
    ...(attributes.lastName !== undefined ? { last_name: attributes.lastName } : {}),
  };
  const row = await db
    .insertInto('users')
    .values({ id: randomUUID(), username, created_at: now, last_seen_at: now, ...changes })
    .onConflict((conflict) =>
      conflict.column('username').doUpdateSet({ last_seen_at: now, ...changes }),
    )
    .returning('id')
    .executeTakeFirstOrThrow();
  return row.id;
}

/** The row id of a user, recording them (with these attributes) only when the platform has never seen them. */
export async function userIdFor(
  db: Kysely<Database>,
  username: string,
  attributes: UserAttributes = {},
): Promise<string> {
  return (await findUserId(db, username)) ?? recordUser(db, username, attributes);
}

/** The row id of a user, or undefined when the platform has never seen them. */
export async function findUserId(
  db: Kysely<Database>,
  username: string,
): Promise<string | undefined> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('username', '=', username)
    .executeTakeFirst();
  return row?.id;
}
