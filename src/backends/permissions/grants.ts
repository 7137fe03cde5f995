// The grants store of the permissions service (migration 019): levels given on apps, analyses and
// tools to users and to groups. Which groups a user is in is the groups service's to say: callers
// pass it in as a subquery (`memberOf`), so a grant through a team follows membership at the
// moment of asking, with no copy to keep in step.
import type { Kysely, SelectQueryBuilder, Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';

type Db = Kysely<Database> | Transaction<Database>;

export const levels = ['read', 'write', 'own'] as const;
export type Level = (typeof levels)[number];
export type ResourceType = 'app' | 'analysis' | 'tool';

/** Whom a grant is to: a user by short username, or a group (team, collaborator list) by id. */
export interface GrantSubject {
  type: 'user' | 'group';
  id: string;
}

export interface Grant {
  resourceId: string;
  subject: GrantSubject;
  level: Level;
}

/** A one-column query answering the ids of the groups a user is a member of. */
export type MemberOf = SelectQueryBuilder<Database, keyof Database, { group_id: string }>;

export const isLevel = (value: unknown): value is Level =>
  typeof value === 'string' && (levels as readonly string[]).includes(value);

/** The higher of two levels (`undefined` is none). */
export function higher(a: Level | undefined, b: Level | undefined): Level | undefined {
  if (a === undefined) return b;
  if (b === undefined) return a;
  return levels.indexOf(a) >= levels.indexOf(b) ? a : b;
}

export const atLeast = (held: Level | undefined, needed: Level): boolean =>
  held !== undefined && levels.indexOf(held) >= levels.indexOf(needed);

/** Gives `subject` exactly `level` on the resource (a lower level replaces a higher one). */
export async function setGrant(
  db: Db,
  type: ResourceType,
  resourceId: string,
  subject: GrantSubject,
  level: Level,
  now: number,
): Promise<void> {
  await db
    .insertInto('resource_permissions')
    .values({
      resource_type: type,
      resource_id: resourceId,
      subject_type: subject.type,
      subject_id: subject.id,
      permission: level,
      granted_on: now,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['resource_type', 'resource_id', 'subject_type', 'subject_id'])
        .doUpdateSet({ permission: level, granted_on: now }),
    )
    .execute();
}

/** Takes `subject`'s grant away; answers whether it had one. */
export async function removeGrant(
  db: Db,
  type: ResourceType,
  resourceId: string,
  subject: GrantSubject,
): Promise<boolean> {
  const result = await db
    .deleteFrom('resource_permissions')
    .where('resource_type', '=', type)
    .where('resource_id', '=', resourceId)
    .where('subject_type', '=', subject.type)
    .where('subject_id', '=', subject.id)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}

/** Takes every grant on a resource away (it is gone). */
export async function removeGrantsOn(
  db: Db,
  type: ResourceType,
  resourceId: string,
): Promise<void> {
  await db
    .deleteFrom('resource_permissions')
    .where('resource_type', '=', type)
    .where('resource_id', '=', resourceId)
    .execute();
}

/** Every grant on the resources given, by resource then subject. */
export async function grantsOn(
  db: Db,
  type: ResourceType,
  resourceIds: string[],
): Promise<Grant[]> {
  if (resourceIds.length === 0) return [];
  const rows = await db
    .selectFrom('resource_permissions')
    .select(['resource_id', 'subject_type', 'subject_id', 'permission'])
    .where('resource_type', '=', type)
    .where('resource_id', 'in', resourceIds)
    .orderBy('resource_id')
    .orderBy('subject_type')
    .orderBy('subject_id')
    .execute();
  return rows.map((row) => ({
    resourceId: row.resource_id,
    subject: { type: row.subject_type as GrantSubject['type'], id: row.subject_id },
    level: row.permission as Level,
  }));
}

/** The ids of the resources granted to `user`, directly or through a group they are in (a subquery). */
export function grantedIds(db: Db, type: ResourceType, user: string, memberOf: MemberOf) {
  return db
    .selectFrom('resource_permissions')
    .select('resource_permissions.resource_id')
    .where('resource_permissions.resource_type', '=', type)
    .where((eb) =>
      eb.or([
        eb.and([
          eb('resource_permissions.subject_type', '=', 'user'),
          eb('resource_permissions.subject_id', '=', user),
        ]),
        eb.and([
          eb('resource_permissions.subject_type', '=', 'group'),
          eb('resource_permissions.subject_id', 'in', memberOf),
        ]),
      ]),
    );
}

/** `user`'s highest granted level on each resource given that they hold one on. */
export async function grantedLevels(
  db: Db,
  type: ResourceType,
  resourceIds: string[],
  user: string,
  memberOf: MemberOf,
): Promise<Map<string, Level>> {
  const found = new Map<string, Level>();
  if (resourceIds.length === 0) return found;
  const rows = await grantedIds(db, type, user, memberOf)
    .select('resource_permissions.permission')
    .where('resource_permissions.resource_id', 'in', resourceIds)
    .execute();
  for (const row of rows)
    found.set(row.resource_id, higher(found.get(row.resource_id), row.permission as Level)!);
  return found;
}

/** Forgets every grant to a group that is going away. */
export async function removeGroupGrants(db: Db, groupId: string): Promise<void> {
  await db
    .deleteFrom('resource_permissions')
    .where('subject_type', '=', 'group')
    .where('subject_id', '=', groupId)
    .execute();
}

/**
 * Gives each of `users` what the group was granted, as grants of their own, never lowering a level
 * one of them already holds directly (a collaborator list deleted with `retain-permissions`).
 */
export async function copyGroupGrants(
  db: Db,
  groupId: string,
  users: string[],
  now: number,
): Promise<void> {
  if (users.length === 0) return;
  const groupGrants = await db
    .selectFrom('resource_permissions')
    .select(['resource_type', 'resource_id', 'permission'])
    .where('subject_type', '=', 'group')
    .where('subject_id', '=', groupId)
    .execute();
  if (groupGrants.length === 0) return;
  const held = await db
    .selectFrom('resource_permissions')
    .select(['resource_type', 'resource_id', 'subject_id', 'permission'])
    .where('subject_type', '=', 'user')
    .where('subject_id', 'in', users)
    .where(
      'resource_id',
      'in',
      groupGrants.map((row) => row.resource_id),
    )
    .execute();
  const key = (type: string, id: string, user: string) => `${type}\u0000${id}\u0000${user}`;
  const current = new Map(
    held.map((row) => [key(row.resource_type, row.resource_id, row.subject_id), row.permission]),
  );
  for (const row of groupGrants)
    for (const user of users) {
      const mine = current.get(key(row.resource_type, row.resource_id, user)) as Level | undefined;
      const level = higher(mine, row.permission as Level)!;
      if (level !== mine)
        await setGrant(
          db,
          row.resource_type as ResourceType,
          row.resource_id,
          { type: 'user', id: user },
          level,
          now,
        );
    }
}
