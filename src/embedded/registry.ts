import { analysesService } from '../backends/analyses/index.js';
import type { EmbeddedBackendName } from '../common/backend-names.js';
import { appsService } from '../backends/apps/index.js';
import { dataInfoService } from '../backends/data-info/index.js';
import { emailService } from '../backends/email/index.js';
import { genomeService } from '../backends/genomesvc/index.js';
import { groupsService } from '../backends/groups/index.js';
import { metadataService } from '../backends/metadata/index.js';
import { notificationAgentService } from '../backends/notification-agent/index.js';
import { requestsService } from '../backends/requests/index.js';
import {
  dataUsageService,
  qmsService,
  resourceUsageService,
  subscriptionsService,
} from '../backends/qms/index.js';
import type { EmbeddedService } from '../backends/service.js';
import { searchService } from '../backends/search/index.js';
import { userInfoService } from '../backends/user-info/index.js';

export const embeddedServices: Record<EmbeddedBackendName, EmbeddedService> = {
  'user-info': userInfoService,
  groups: groupsService,
  'data-info': dataInfoService,
  apps: appsService,
  metadata: metadataService,
  'notification-agent': notificationAgentService,
  genomesvc: genomeService,
  analyses: analysesService,
  search: searchService,
  email: emailService,
  requests: requestsService,
  qms: qmsService,
  subscriptions: subscriptionsService,
  'resource-usage': resourceUsageService,
  'data-usage': dataUsageService,
};
