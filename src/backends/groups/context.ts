// What every groups route module is given, and the member changes they share (adding and removing
// subjects one by one, each with its own `results[]` outcome).
import type { FastifyPluginAsync } from 'fastify';
import type { UserNotification } from '../../common/notifications.ts';
import { qualifiedUsername } from '../../common/users.ts';
import {
  addMember,
  everyone,
  isMember,
  privilegesOf,
  removeMember,
  revoke,
  type Db,
} from './group-store.ts';
import { subjectsFor, type ResultView } from './group-views.ts';

export interface GroupsContext {
  db: Db;
  uidDomain: string;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
}

export type GroupRoutes = FastifyPluginAsync<GroupsContext>;

/** The short usernames among `subjects` that the platform has seen. */
export async function seenUsers(
  context: Pick<GroupsContext, 'db' | 'uidDomain'>,
  subjects: string[],
): Promise<Set<string>> {
  if (subjects.length === 0) return new Set();
  const qualified = new Map(subjects.map((id) => [qualifiedUsername(id, context.uidDomain), id]));
  const rows = await context.db
    .selectFrom('users')
    .select('username')
    .where('username', 'in', [...qualified.keys()])
    .execute();
  return new Set(rows.map((row) => qualified.get(row.username)!));
}

/**
 * Adds subjects to a group, each its own outcome: a user the platform has never seen is refused,
 * an existing member succeeds without change. `added` lists those that became members.
 */
export async function addSubjects(
  context: GroupsContext,
  groupId: string,
  subjects: string[],
): Promise<{ results: ResultView[]; added: string[] }> {
  const seen = await seenUsers(context, subjects);
  const views = await subjectsFor(context.db, context.uidDomain, subjects);
  const results: ResultView[] = [];
  const added: string[] = [];
  for (const subject of subjects) {
    if (!seen.has(subject)) {
      results.push({ success: false, subject_id: subject, reason: 'subject not found' });
      continue;
    }
    if (await addMember(context.db, groupId, subject, context.now())) added.push(subject);
    results.push({ success: true, subject_id: subject, subject_name: views.get(subject)!.name });
  }
  return { results, added };
}

/**
 * Removes subjects from a group with their privileges; one who was not a member fails alone, and
 * so does the group's last admin, who would leave it with nobody to run it.
 */
export async function removeSubjects(
  context: GroupsContext,
  groupId: string,
  subjects: string[],
): Promise<{ results: ResultView[]; removed: string[] }> {
  const results: ResultView[] = [];
  const removed: string[] = [];
  const admins = new Set(
    (await privilegesOf(context.db, groupId))
      .filter((row) => row.privilege === 'admin' && row.subject_id !== everyone)
      .map((row) => row.subject_id),
  );
  for (const subject of subjects) {
    if (
      admins.has(subject) &&
      admins.size === 1 &&
      (await isMember(context.db, groupId, subject))
    ) {
      results.push({ success: false, subject_id: subject, reason: 'the last administrator' });
    } else if (await removeMember(context.db, groupId, subject)) {
      admins.delete(subject);
      await revoke(context.db, groupId, [subject]);
      removed.push(subject);
      results.push({ success: true, subject_id: subject });
    } else results.push({ success: false, subject_id: subject, reason: 'not a member' });
  }
  return { results, removed };
}

/** A group's members as `{members: [subject]}`. */
export async function membersView(context: GroupsContext, ids: string[]) {
  const views = await subjectsFor(context.db, context.uidDomain, ids);
  return { members: ids.map((id) => views.get(id)!) };
}
