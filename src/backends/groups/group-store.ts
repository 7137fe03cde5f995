// The groups service's rows: groups of one kind (team, community, collaborator list), their
// members, privileges and pending join requests, read and written for the route modules.
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { gatewayError } from '../../common/errors.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { removeGroupGrants } from '../permissions/index.ts';

export type Db = Kysely<Database>;
export type GroupRow = Selectable<Database['groups']>;
export type GroupKind = 'team' | 'community' | 'collaborator-list' | 'workshop' | 'platform';

/** The subject that stands for everyone: a privilege granted to it is a public privilege. */
export const everyone = 'GrouperAll';

/** The privileges a subject may hold on a group (AddTeamRequest's list, less the attribute ones). */
export const privilegeNames = ['admin', 'read', 'view', 'optin', 'optout', 'update'] as const;
export type Privilege = (typeof privilegeNames)[number];

const kindLabel: Record<GroupKind, string> = {
  team: 'team',
  community: 'community',
  'collaborator-list': 'collaborator list',
  workshop: 'workshop group',
  platform: 'platform group',
};

export async function findGroup(
  db: Db,
  kind: GroupKind,
  name: string,
): Promise<GroupRow | undefined> {
  return db
    .selectFrom('groups')
    .selectAll()
    .where('kind', '=', kind)
    .where('name', '=', name)
    .executeTakeFirst();
}

/** The group, or 404 ERR_NOT_FOUND naming it. */
export async function requireGroup(db: Db, kind: GroupKind, name: string): Promise<GroupRow> {
  const group = await findGroup(db, kind, name);
  if (!group)
    throw gatewayError('ERR_NOT_FOUND', `${kindLabel[kind]} not found: ${name}`, { name });
  return group;
}

/** Makes a group with its first privileges; an existing name is 400 ERR_EXISTS. */
export async function createGroup(
  db: Db,
  group: { kind: GroupKind; name: string; description: string; creator: string },
  grants: { subject: string; privileges: readonly string[] }[],
  members: string[],
  now: number,
): Promise<GroupRow> {
  const row: GroupRow = {
    id: randomUUID(),
    ...group,
    created_on: now,
    modified_on: now,
  };
  try {
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('groups').values(row).execute();
      await grant(trx, row.id, grants, now);
      if (members.length > 0)
        await trx
          .insertInto('group_members')
          .values(
            members.map((subject) => ({ group_id: row.id, subject_id: subject, added_on: now })),
          )
          .execute();
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw gatewayError('ERR_EXISTS', `${kindLabel[group.kind]} already exists: ${group.name}`, {
        name: group.name,
      });
    throw error;
  }
  return row;
}

/** Renames or re-describes a group; a name another group of its kind holds is 400 ERR_EXISTS. */
export async function updateGroup(
  db: Db,
  group: GroupRow,
  changes: { name?: string; description?: string },
  now: number,
): Promise<GroupRow> {
  const updated = { ...group, ...changes, modified_on: now };
  try {
    await db
      .updateTable('groups')
      .set({ name: updated.name, description: updated.description, modified_on: now })
      .where('id', '=', group.id)
      .execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw gatewayError(
        'ERR_EXISTS',
        `${kindLabel[group.kind as GroupKind]} already exists: ${updated.name}`,
        {
          name: updated.name,
        },
      );
    throw error;
  }
  return updated;
}

/** Deletes a group with its rows, and whatever apps, analyses and tools were shared with it. */
export async function deleteGroup(db: Db, group: GroupRow): Promise<void> {
  // Children first: SQLite enforces the cascade only with foreign keys switched on.
  await db.transaction().execute(async (trx) => {
    for (const table of ['group_join_requests', 'group_privileges', 'group_members'] as const)
      await trx.deleteFrom(table).where('group_id', '=', group.id).execute();
    await removeGroupGrants(trx, group.id);
    await trx.deleteFrom('groups').where('id', '=', group.id).execute();
  });
}

/** Grants privileges (keeping ones already held). */
export async function grant(
  db: Db,
  groupId: string,
  grants: { subject: string; privileges: readonly string[] }[],
  now: number,
): Promise<void> {
  const rows = grants.flatMap(({ subject, privileges }) =>
    privileges.map((privilege) => ({
      group_id: groupId,
      subject_id: subject,
      privilege,
      granted_on: now,
    })),
  );
  if (rows.length === 0) return;
  await db
    .insertInto('group_privileges')
    .values(rows)
    .onConflict((conflict) => conflict.columns(['group_id', 'subject_id', 'privilege']).doNothing())
    .execute();
}

/** Takes privileges away from subjects: the named ones, or all of them. */
export async function revoke(
  db: Db,
  groupId: string,
  subjects: string[],
  privileges?: readonly string[],
): Promise<void> {
  if (subjects.length === 0) return;
  let query = db
    .deleteFrom('group_privileges')
    .where('group_id', '=', groupId)
    .where('subject_id', 'in', subjects);
  if (privileges) query = query.where('privilege', 'in', privileges);
  await query.execute();
}

/** Privileges of a group as `[subject, privilege]` rows, in grant order. */
export async function privilegesOf(
  db: Db,
  groupId: string,
): Promise<{ subject_id: string; privilege: string }[]> {
  return db
    .selectFrom('group_privileges')
    .select(['subject_id', 'privilege'])
    .where('group_id', '=', groupId)
    .orderBy('granted_on')
    .orderBy('subject_id')
    .orderBy('privilege')
    .execute();
}

/** What `subject` may do with the group: its own privileges and the public ones. */
export async function effectivePrivileges(
  db: Db,
  groupId: string,
  subject: string,
): Promise<Set<string>> {
  const rows = await db
    .selectFrom('group_privileges')
    .select('privilege')
    .where('group_id', '=', groupId)
    .where('subject_id', 'in', [subject, everyone])
    .execute();
  return new Set(rows.map((row) => row.privilege));
}

export async function membersOf(db: Db, groupId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('group_members')
    .select('subject_id')
    .where('group_id', '=', groupId)
    .orderBy('subject_id')
    .execute();
  return rows.map((row) => row.subject_id);
}

export async function isMember(db: Db, groupId: string, subject: string): Promise<boolean> {
  const row = await db
    .selectFrom('group_members')
    .select('subject_id')
    .where('group_id', '=', groupId)
    .where('subject_id', '=', subject)
    .executeTakeFirst();
  return row !== undefined;
}

/** Adds a member; answers false when they already were one. */
export async function addMember(
  db: Db,
  groupId: string,
  subject: string,
  now: number,
): Promise<boolean> {
  const added = await db
    .insertInto('group_members')
    .values({ group_id: groupId, subject_id: subject, added_on: now })
    .onConflict((conflict) => conflict.columns(['group_id', 'subject_id']).doNothing())
    .executeTakeFirst();
  await db
    .deleteFrom('group_join_requests')
    .where('group_id', '=', groupId)
    .where('requester', '=', subject)
    .execute();
  return Number(added.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Removes a member; answers false when they were not one. */
export async function removeMember(db: Db, groupId: string, subject: string): Promise<boolean> {
  const removed = await db
    .deleteFrom('group_members')
    .where('group_id', '=', groupId)
    .where('subject_id', '=', subject)
    .executeTakeFirst();
  return Number(removed.numDeletedRows) > 0;
}

/** Groups of a kind, optionally only those `member` belongs to, those named like `search`, those `creator` made. */
export async function listGroups(
  db: Db,
  kind: GroupKind,
  filters: { member?: string; search?: string; creator?: string; visibleTo?: string },
): Promise<GroupRow[]> {
  let query = db.selectFrom('groups').selectAll().where('kind', '=', kind);
  if (filters.visibleTo !== undefined) {
    // Members see a group; so does anyone holding (or given publicly) a privilege on it: one
    // query for the whole listing, not two per group.
    const subject = filters.visibleTo;
    query = query.where((eb) =>
      eb.or([
        eb(
          'id',
          'in',
          eb
            .selectFrom('group_privileges')
            .select('group_id')
            .where('subject_id', 'in', [subject, everyone]),
        ),
        eb(
          'id',
          'in',
          eb.selectFrom('group_members').select('group_id').where('subject_id', '=', subject),
        ),
      ]),
    );
  }
  if (filters.member !== undefined) {
    const member = filters.member;
    query = query.where('id', 'in', (eb) =>
      eb.selectFrom('group_members').select('group_id').where('subject_id', '=', member),
    );
  }
  if (filters.creator !== undefined) query = query.where('creator', '=', filters.creator);
  const rows = await query.orderBy('name').execute();
  const search = filters.search?.toLowerCase();
  return search === undefined
    ? rows
    : rows.filter((row) => row.name.toLowerCase().includes(search));
}

/** Records (or refreshes) a pending request to join. */
export async function recordJoinRequest(
  db: Db,
  groupId: string,
  requester: string,
  message: string,
  now: number,
): Promise<void> {
  await db
    .insertInto('group_join_requests')
    .values({ group_id: groupId, requester, message, requested_on: now })
    .onConflict((conflict) =>
      conflict.columns(['group_id', 'requester']).doUpdateSet({ message, requested_on: now }),
    )
    .execute();
}

/** Drops a pending request; answers false when there was none. */
export async function dropJoinRequest(
  db: Db,
  groupId: string,
  requester: string,
): Promise<boolean> {
  const dropped = await db
    .deleteFrom('group_join_requests')
    .where('group_id', '=', groupId)
    .where('requester', '=', requester)
    .executeTakeFirst();
  return Number(dropped.numDeletedRows) > 0;
}

/**
 * Whether `user` (a short username) administers the community named `community`; false when there
 * is no such community. For the apps service, which lets community administrators tag apps.
 */
export async function isCommunityAdmin(db: Db, community: string, user: string): Promise<boolean> {
  const group = await findGroup(db, 'community', community);
  return group !== undefined && (await effectivePrivileges(db, group.id, user)).has('admin');
}

/** The ids of the groups `user` is a member of, as a subquery (grants through a group follow it). */
export function groupIdsOf(db: Db, user: string) {
  return db
    .selectFrom('group_members')
    .select('group_members.group_id')
    .where('group_members.subject_id', '=', user);
}

/**
 * A team or collaborator list that things can be shared with, by id or by full name
 * (`alice:my team`); communities are not sharing subjects.
 */
export async function findSharingGroup(
  db: Db,
  idOrName: string,
): Promise<{ id: string; name: string; members: string[] } | undefined> {
  const group = await db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('kind', 'in', ['team', 'collaborator-list'])
    .where((eb) => eb.or([eb('id', '=', idOrName.toLowerCase()), eb('name', '=', idOrName)]))
    .executeTakeFirst();
  return group && { ...group, members: await membersOf(db, group.id) };
}

/**
 * The names of the teams and communities `user` (a short username) is a member of, by name: what
 * the embedded identity provider puts in a token's `entitlement` claim beside the administrators' group.
 */
export async function memberGroupNames(db: Db, user: string): Promise<string[]> {
  const rows = await db
    .selectFrom('groups')
    .select('groups.name')
    .where('groups.kind', 'in', ['team', 'community'])
    .where('groups.id', 'in', groupIdsOf(db, user))
    .orderBy('groups.name')
    .execute();
  return rows.map((row) => row.name);
}

/** Names of groups by id (for showing grants). */
export async function groupNames(db: Db, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('groups')
    .select(['id', 'name'])
    .where('id', 'in', ids)
    .execute();
  return new Map(rows.map((row) => [row.id, row.name]));
}
