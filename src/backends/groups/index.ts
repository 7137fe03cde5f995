import type { EmbeddedService } from '../service.ts';
import { documented } from './documented.ts';
import { collaboratorListRoutes } from './collaborator-list-routes.ts';
import { communityRoutes } from './community-routes.ts';
import type { GroupsContext } from './context.ts';
import { platformUsersRoutes } from './platform-users.ts';
import { subjectRoutes } from './subject-routes.ts';
import { teamRoutes } from './team-routes.ts';

// The groups service's door: the service itself, for the embedded host; and what the apps service
// asks in-process (same store): isCommunityAdmin, before letting a community's administrators tag
// apps into it; groupIdsOf, the groups a user is in, through which grants reach them;
// findSharingGroup and groupNames, for sharing with teams and collaborator lists; memberGroupNames,
// the teams and communities the identity provider names in a user's tokens; the workshop
// group, whose administrators' routes the apps service serves. Nothing else of it is for other
// parts of the project.
export {
  findSharingGroup,
  groupIdsOf,
  groupNames,
  isCommunityAdmin,
  memberGroupNames,
} from './group-store.ts';
export { replaceWorkshopMembers, workshopGroupView, workshopMembers } from './workshop-group.ts';

/**
 * The groups service (routes.md §22, docs/api/groups.md): people (`/subjects`, the identities
 * the platform has seen), teams, collaborator lists and communities, from the store. The
 * `/admin/communities...` paths act as the groups administrator; the gateway lets only
 * administrators reach them.
 */
export const groupsService: EmbeddedService = {
  name: 'groups',
  documented,
  plugin: async (app, { store, config, notify, now = Date.now }) => {
    const context: GroupsContext = { db: store.db, uidDomain: config.uidDomain, notify, now };
    await app.register(subjectRoutes, { db: store.db, uidDomain: config.uidDomain });
    await app.register(teamRoutes, context);
    await app.register(collaboratorListRoutes, context);
    await app.register(communityRoutes(false), context);
    await app.register(communityRoutes(true), { ...context, prefix: '/admin' });
    await app.register(platformUsersRoutes, context);
  },
};
