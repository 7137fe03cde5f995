// Every passthrough table, in the order of routes.md.
import type { PassthroughRoute } from '../http/passthrough.js';
import { adminAppsRoutes } from './admin-apps.js';
import { alertsRoutes } from './alerts.js';
import { adminRoutes } from './admin.js';
import { analysesRoutes } from './analyses.js';
import { appMetadataRoutes } from './app-metadata.js';
import { appsRoutes } from './apps.js';
import { bagsRoutes } from './bags.js';
import { callbacksRoutes } from './callbacks.js';
import { dataTagsRoutes } from './data-tags.js';
import { dataRoutes } from './data.js';
import { filesystemRoutes } from './filesystem.js';
import { instantLaunchesRoutes } from './instant-launches.js';
import { notificationsRoutes } from './notifications.js';
import { oauthRoutes } from './oauth.js';
import { ontologiesRoutes } from './ontologies.js';
import { permanentIdRequestsRoutes } from './permanent-id-requests.js';
import { qmsRoutes } from './qms.js';
import { quicklaunchesRoutes } from './quicklaunches.js';
import { serviceAccountsRoutes } from './service-accounts.js';
import { sessionsRoutes } from './sessions.js';
import { teamsRoutes } from './teams.js';
import { toolsRoutes } from './tools.js';

export const passthroughRoutes: readonly PassthroughRoute[] = [
  ...callbacksRoutes,
  ...sessionsRoutes,
  ...notificationsRoutes,
  ...alertsRoutes,
  ...oauthRoutes,
  ...ontologiesRoutes,
  ...appMetadataRoutes,
  ...analysesRoutes,
  ...quicklaunchesRoutes,
  ...filesystemRoutes,
  ...dataRoutes,
  ...permanentIdRequestsRoutes,
  ...appsRoutes,
  ...adminAppsRoutes,
  ...toolsRoutes,
  ...instantLaunchesRoutes,
  ...dataTagsRoutes,
  ...bagsRoutes,
  ...teamsRoutes,
  ...qmsRoutes,
  ...adminRoutes,
  ...serviceAccountsRoutes,
];
