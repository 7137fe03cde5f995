// Deleting a collaborator list (or removing members from one) keeping what it was shared: routes.md
// §22, DELETE `/collaborator-lists/{name}` and `members/deleter` with `retain-permissions=true`,
// "copy the list's permissions to its members first".
import { copyGroupGrants } from '../permissions/index.ts';
import type { Db, GroupRow } from './group-store.ts';

/**
 * Copies every grant the collaborator list holds (apps, analyses, tools shared with it) to each of
 * `members` directly, before the list, or their membership of it, goes; a member's own higher
 * level stays. Files and folders are shared with users only, so a list holds no data grants.
 */
export async function copyListPermissionsToMembers(
  db: Db,
  list: GroupRow,
  members: string[],
  now: number,
): Promise<void> {
  await copyGroupGrants(db, list.id, members, now);
}
