import { analysesService } from './analyses/index.js';
import type { EmbeddedBackendName } from './catalog.js';
import { appsService } from './apps/index.js';
import { dataInfoService } from './data-info/index.js';
import { genomeService } from './genomesvc/index.js';
import { groupsService } from './groups/index.js';
import { metadataService } from './metadata/index.js';
import { notificationAgentService } from './notification-agent/index.js';
import type { EmbeddedService } from './service.js';
import { userInfoService } from './user-info/index.js';

export const embeddedServices: Record<EmbeddedBackendName, EmbeddedService> = {
  'user-info': userInfoService,
  groups: groupsService,
  'data-info': dataInfoService,
  apps: appsService,
  metadata: metadataService,
  'notification-agent': notificationAgentService,
  genomesvc: genomeService,
  analyses: analysesService,
};
