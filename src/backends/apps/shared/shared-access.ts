// What was shared with a user, for the apps service's listings and checks: grants kept by the
// permissions service, to the user or to a team or collaborator list they are in now (the groups
// service says which), so a grant through a team follows team membership.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { groupIdsOf } from '../../groups/index.ts';
import {
  grantedIds,
  grantedLevels,
  higher,
  type Level,
  type ResourceType,
} from '../../permissions/index.ts';

/** The ids of the resources of a type shared with `user` (a subquery). */
export const sharedIds = (db: Kysely<Database>, type: ResourceType, user: string) =>
  grantedIds(db, type, user, groupIdsOf(db, user));

/** `user`'s granted level on each of the resources given that they hold one on. */
export const sharedLevels = (
  db: Kysely<Database>,
  type: ResourceType,
  ids: string[],
  user: string,
): Promise<Map<string, Level>> => grantedLevels(db, type, ids, user, groupIdsOf(db, user));

/**
 * A user's level on a resource: `own` for its owner, else the highest granted, else `read` when it
 * is public to everyone; undefined when they hold none.
 */
export function levelOf(
  owner: string,
  user: string,
  granted: Level | undefined,
  isPublic = false,
): Level | undefined {
  if (owner === user) return 'own';
  return higher(granted, isPublic ? 'read' : undefined);
}
