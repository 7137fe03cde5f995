// The hook through which deleting a collaborator list (or removing members from one) keeps what it
// was shared: routes.md §22, DELETE `/collaborator-lists/{name}` and `members/deleter` with
// `retain-permissions=true`, "copy the list's permissions to its members first".
import type { GroupRow } from './group-store.js';

/**
 * Copies every permission granted to the collaborator list (as a group subject) to each of
 * `members` directly, before the list, or their membership of it, goes.
 *
 * TO BE FILLED BY THE SHARING WORK: the platform does not grant permissions to groups yet (no
 * permissions store holds a group subject), so a list has no grants to copy and this does nothing.
 * When sharing with collaborator lists arrives, this is the one place to copy the list's grants
 * (apps, analyses, data) to the members; the routes already call it at the right moment and only
 * when the caller asked for `retain-permissions=true`.
 */
export async function copyListPermissionsToMembers(
  list: GroupRow,
  members: string[],
): Promise<void> {
  void list;
  void members;
}
