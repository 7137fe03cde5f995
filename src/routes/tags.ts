/** The endpoint groups of the specification's interface description, plus the gateway's own. */
export const specTags = [
  'admin', 'admin-apps', 'admin-comments', 'admin-communities', 'admin-filesystem', 'admin-instant-launches',
  'admin-permanent-id-requests', 'admin-qms', 'admin-reference-genomes', 'admin-request-types', 'admin-requests',
  'admin-resource-usage', 'admin-settings', 'admin-token', 'admin-tools', 'admin-tool-requests', 'admin-user-info',
  'admin-vice', 'analyses', 'analyses-quicklaunches', 'apps', 'app-categories', 'app-communities', 'app-community-tags',
  'app-hierarchies', 'app-element-types', 'app-metadata', 'app-pipelines', 'app-versions', 'bags', 'bootstrap',
  'callbacks', 'coge', 'collaborator-lists', 'communities', 'dashboard', 'data', 'favorites', 'fileio', 'filesystem',
  'instant-launches', 'notifications', 'permanent-id-requests', 'qms', 'reference-genomes', 'requests',
  'resource-usage', 'subjects', 'support', 'tags', 'teams', 'tools', 'gpu-models', 'tool-requests', 'token',
  'user-info', 'webhooks', 'vice', 'service-account-email', 'service-account-qms', 'service-account-user-info',
] as const;

/**
 * Tags for routes the specification lists without a group: `misc` for its unsecured basics
 * (`/`, `/uuid`, sessions, preferences, comments, alerts, search), `operations` for health and metrics.
 */
export const gatewayTags = ['misc', 'operations'] as const;

export type Tag = (typeof specTags)[number] | (typeof gatewayTags)[number];

export const allTags: readonly Tag[] = [...specTags, ...gatewayTags];
