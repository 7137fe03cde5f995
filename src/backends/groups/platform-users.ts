// The platform users group, `de-users` (routes.md §24 `DELETE /admin/groups/de-users/members/
// {subject-id}`), and the groups a user is in (§3 `GET /admin/users/{username}/groups`), both for
// administrators. Every user the platform sees joins `de-users`; an administrator may take one out,
// and they stay out. The group's modified time is how far the joining has got: users first seen
// after it join at the next use, so one taken out (seen before it) is never added back.
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import { qualifiedUsername, shortUsername } from '../../common/users.ts';
import { seenUsers, type GroupRoutes, type GroupsContext } from './context.ts';
import { addMember, findGroup, removeMember, type GroupRow } from './group-store.ts';
import { detailedGroupViews, groupView } from './group-views.ts';

const platformUsers = { kind: 'platform', name: 'de-users' } as const;

/** The `de-users` group (made on first use), its members brought up to the users seen so far. */
async function platformUsersGroup(context: GroupsContext): Promise<GroupRow> {
  const { db } = context;
  if (!(await findGroup(db, platformUsers.kind, platformUsers.name))) {
    const now = context.now();
    // Two first uses at once: one insert wins. Modified time 0: everyone seen so far joins below.
    await db
      .insertInto('groups')
      .values({
        id: randomUUID(),
        ...platformUsers,
        description: 'Platform users',
        creator: 'platform',
        created_on: now,
        modified_on: 0,
      })
      .onConflict((conflict) => conflict.columns(['kind', 'name']).doNothing())
      .execute();
  }
  const group = (await findGroup(db, platformUsers.kind, platformUsers.name))!;
  const newcomers = await db
    .selectFrom('users')
    .select(['username', 'created_at'])
    .where('created_at', '>', Number(group.modified_on))
    .execute();
  if (newcomers.length === 0) return group;
  const now = context.now();
  for (const user of newcomers) await addMember(db, group.id, shortUsername(user.username), now);
  const reached = Math.max(...newcomers.map((user) => Number(user.created_at)));
  await db
    .updateTable('groups')
    .set({ modified_on: reached })
    .where('id', '=', group.id)
    .where('modified_on', '<', reached)
    .execute();
  return { ...group, modified_on: reached };
}

const SubjectParams = Type.Object({ subject: Type.String({ minLength: 1 }) });
const UsernameParams = Type.Object({ username: Type.String({ minLength: 1 }) });
const DetailsQuery = Type.Object({ details: Type.Optional(Type.Boolean()) });

export const platformUsersRoutes: GroupRoutes = async (app, context) => {
  app.delete(
    '/admin/groups/de-users/members/:subject',
    { schema: { params: SubjectParams } },
    async (request) => {
      const { subject } = request.params as { subject: string };
      const group = await platformUsersGroup(context);
      if (!(await removeMember(context.db, group.id, subject)))
        throw gatewayError('ERR_NOT_FOUND', `not a member of de-users: ${subject}`, {
          subject_id: subject,
        });
      return { success: true, subject_id: subject };
    },
  );

  app.get(
    '/admin/users/:username/groups',
    { schema: { params: UsernameParams, querystring: DetailsQuery } },
    async (request) => {
      const { username } = request.params as { username: string };
      const { details = false } = request.query as { details?: boolean };
      if (!(await seenUsers(context, [username])).has(username))
        throw gatewayError('ERR_NOT_FOUND', `user not found: ${username}`, {
          username: qualifiedUsername(username, context.uidDomain),
        });
      await platformUsersGroup(context);
      const groups = await context.db
        .selectFrom('groups')
        .innerJoin('group_members', 'group_members.group_id', 'groups.id')
        .selectAll('groups')
        .where('group_members.subject_id', '=', username)
        .orderBy('groups.name')
        .orderBy('groups.kind')
        .execute();
      return {
        groups: details
          ? await detailedGroupViews(context.db, context.uidDomain, groups)
          : groups.map((group) => groupView(group)),
      };
    },
  );
};
