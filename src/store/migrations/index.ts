import type { Migration } from 'kysely';
import * as users from './001-users.js';
import * as userInfo from './002-user-info.js';
import * as appsAccounts from './003-apps-accounts.js';
import * as dataStore from './004-data-store.js';
import * as metadata from './005-metadata.js';
import * as metadataTemplatesPids from './006-metadata-templates-pids.js';
import * as dataTicketObjectIndex from './007-data-ticket-object-index.js';
import * as notifications from './008-notifications.js';
import * as appsCatalog from './009-apps-catalog.js';
import * as oauth from './010-oauth.js';
import * as ontologies from './011-ontologies.js';
import * as genomes from './012-genomes.js';
import * as quickLaunches from './014-quick-launches.js';
import * as analyses from './015-analyses.js';
import * as concurrentJobLimits from './016-concurrent-job-limits.js';
import * as groups from './017-groups.js';
import * as featuredBuiltInApps from './018-featured-built-in-apps.js';
import * as resourcePermissions from './019-resource-permissions.js';
import * as integrationData from './020-integration-data.js';
import * as appPublication from './021-app-publication.js';
import * as toolsAndRequests from './022-tools-and-requests.js';
import * as referenceGenomes from './023-reference-genomes.js';
import * as webhooks from './024-webhooks.js';
import * as analysisSteps from './025-analysis-steps.js';
import * as dataSearch from './026-data-search.js';
import * as instantLaunches from './027-instant-launches.js';
import * as dashboardFeeds from './028-dashboard-feeds.js';
import * as interactiveSessions from './029-interactive-sessions.js';
import * as requests from './030-requests.js';
import * as identity from './031-identity.js';
import * as subscriptions from './032-subscriptions.js';
import * as listingIndexes from './033-listing-indexes.js';
import * as pageIndexes from './034-page-indexes.js';
import * as favoriteKeys from './035-favorite-keys.js';
import * as folderVersions from './036-folder-versions.js';
import * as searchOrders from './037-search-orders.js';

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
};
