import type { Migration } from 'kysely';
import * as users from './001-users.ts';
import * as userInfo from './002-user-info.ts';
import * as appsAccounts from './003-apps-accounts.ts';
import * as dataStore from './004-data-store.ts';
import * as metadata from './005-metadata.ts';
import * as metadataTemplatesPids from './006-metadata-templates-pids.ts';
import * as dataTicketObjectIndex from './007-data-ticket-object-index.ts';
import * as notifications from './008-notifications.ts';
import * as appsCatalog from './009-apps-catalog.ts';
import * as oauth from './010-oauth.ts';
import * as ontologies from './011-ontologies.ts';
import * as genomes from './012-genomes.ts';
import * as quickLaunches from './014-quick-launches.ts';
import * as analyses from './015-analyses.ts';
import * as concurrentJobLimits from './016-concurrent-job-limits.ts';
import * as groups from './017-groups.ts';
import * as featuredBuiltInApps from './018-featured-built-in-apps.ts';
import * as resourcePermissions from './019-resource-permissions.ts';
import * as integrationData from './020-integration-data.ts';
import * as appPublication from './021-app-publication.ts';
import * as toolsAndRequests from './022-tools-and-requests.ts';
import * as referenceGenomes from './023-reference-genomes.ts';
import * as webhooks from './024-webhooks.ts';
import * as analysisSteps from './025-analysis-steps.ts';
import * as dataSearch from './026-data-search.ts';
import * as instantLaunches from './027-instant-launches.ts';
import * as dashboardFeeds from './028-dashboard-feeds.ts';
import * as interactiveSessions from './029-interactive-sessions.ts';
import * as requests from './030-requests.ts';
import * as identity from './031-identity.ts';
import * as subscriptions from './032-subscriptions.ts';
import * as listingIndexes from './033-listing-indexes.ts';
import * as pageIndexes from './034-page-indexes.ts';
import * as favoriteKeys from './035-favorite-keys.ts';
import * as folderVersions from './036-folder-versions.ts';
import * as searchOrders from './037-search-orders.ts';
import * as jobLeases from './038-job-leases.ts';
import * as stepCpuSeconds from './039-step-cpu-seconds.ts';
import * as notificationOutbox from './040-notification-outbox.ts';
import * as signInFailures from './041-sign-in-failures.ts';
import * as dataObjectBlobs from './042-data-object-blobs.ts';
import * as liveNotificationOutbox from './043-live-notification-outbox.ts';
import * as webhookOutbox from './044-webhook-outbox.ts';

/** Versioned migrations, applied in key order on either engine. Never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '001-users': users,
  '002-user-info': userInfo,
  '003-apps-accounts': appsAccounts,
  '004-data-store': dataStore,
  '005-metadata': metadata,
  '006-metadata-templates-pids': metadataTemplatesPids,
  '007-data-ticket-object-index': dataTicketObjectIndex,
  '008-notifications': notifications,
  '009-apps-catalog': appsCatalog,
  '010-oauth': oauth,
  '011-ontologies': ontologies,
  '012-genomes': genomes,
  '014-quick-launches': quickLaunches,
  '015-analyses': analyses,
  '016-concurrent-job-limits': concurrentJobLimits,
  '017-groups': groups,
  '018-featured-built-in-apps': featuredBuiltInApps,
  '019-resource-permissions': resourcePermissions,
  '020-integration-data': integrationData,
  '021-app-publication': appPublication,
  '022-tools-and-requests': toolsAndRequests,
  '023-reference-genomes': referenceGenomes,
  '024-webhooks': webhooks,
  '025-analysis-steps': analysisSteps,
  '026-data-search': dataSearch,
  '027-instant-launches': instantLaunches,
  '028-dashboard-feeds': dashboardFeeds,
  '029-interactive-sessions': interactiveSessions,
  '030-requests': requests,
  '031-identity': identity,
  '032-subscriptions': subscriptions,
  '033-listing-indexes': listingIndexes,
  '034-page-indexes': pageIndexes,
  '035-favorite-keys': favoriteKeys,
  '036-folder-versions': folderVersions,
  '037-search-orders': searchOrders,
  '038-job-leases': jobLeases,
  '039-step-cpu-seconds': stepCpuSeconds,
  '040-notification-outbox': notificationOutbox,
  '041-sign-in-failures': signInFailures,
  '042-data-object-blobs': dataObjectBlobs,
  '043-live-notification-outbox': liveNotificationOutbox,
  '044-webhook-outbox': webhookOutbox,
};
