import type { EmbeddedService } from '../service.js';
import { subjectRoutes } from './subject-routes.js';

// The groups service's door: the service itself, for the embedded host; nothing else of it is for
// other parts of the project.

/**
 * The part of the groups service that describes people (`/subjects`), answered from the
 * identities the platform has seen. Teams, communities and collaborator lists need a real
 * groups service (GROUPS_URL); their paths answer 501 here.
 */
export const groupsService: EmbeddedService = {
  name: 'groups',
  plugin: async (app, { store, config }) => {
    await app.register(subjectRoutes, { db: store.db, uidDomain: config.uidDomain });
  },
};
