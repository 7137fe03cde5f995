import { analysesService } from '../backends/analyses/index.ts';
import type { EmbeddedBackendName } from '../common/backend-names.ts';
import { appsService } from '../backends/apps/index.ts';
import { dataInfoService } from '../backends/data-info/index.ts';
import { emailService } from '../backends/email/index.ts';
import { genomeService } from '../backends/genomesvc/index.ts';
import { groupsService } from '../backends/groups/index.ts';
import { metadataService } from '../backends/metadata/index.ts';
import { notificationAgentService } from '../backends/notification-agent/index.ts';
import { requestsService } from '../backends/requests/index.ts';
import {
  dataUsageService,
  qmsService,
  resourceUsageService,
  subscriptionsService,
} from '../backends/qms/index.ts';
import type { EmbeddedService } from '../backends/service.ts';
import { searchService } from '../backends/search/index.ts';
import { userInfoService } from '../backends/user-info/index.ts';

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
