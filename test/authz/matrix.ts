// The authorization matrix (issue 45 item 5): every operation of /openapi.json that touches
// someone's data is a row here, on a kind of resource (how it is made, and what its owner grants
// to whom), saying what the operation takes; the answer each actor should get follows from that
// (model.ts `expected`), with the exceptions the row names. Every other operation is in
// `outsideTheMatrix` with the reason it is not walked (it touches no one's data, or signs in).
// matrix.test.ts walks the rows on both engines and fails for an operation that is in neither.
// docs/development.md says how to place a new route.
import { accountKinds, accountRows } from './accounts.ts';
import { adminAppKinds, adminAppRows } from './admin-apps.ts';
import { adminKinds, adminRows } from './admin.ts';
import { annotationKinds, annotationRows } from './annotations.ts';
import { appKinds, appRows } from './apps.ts';
import { catalogKinds, catalogRows } from './catalog.ts';
import { dataKinds, dataRows } from './data.ts';
import { groupKinds, groupRows } from './groups.ts';
import { launchKinds, launchRows } from './launches.ts';
import type { Kind, Row } from './model.ts';
import { ownKinds, ownRows } from './own.ts';
import { sessionKinds, sessionRows } from './sessions.ts';

/** The parts of the matrix, by area: each its kinds of resources and its rows. */
const parts: { kinds: Record<string, Kind>; rows: Row[] }[] = [
  { kinds: dataKinds, rows: dataRows },
  { kinds: groupKinds, rows: groupRows },
  { kinds: appKinds, rows: appRows },
  { kinds: catalogKinds, rows: catalogRows },
  { kinds: ownKinds, rows: ownRows },
  { kinds: launchKinds, rows: launchRows },
  { kinds: annotationKinds, rows: annotationRows },
  { kinds: accountKinds, rows: accountRows },
  { kinds: sessionKinds, rows: sessionRows },
  { kinds: adminAppKinds, rows: adminAppRows },
  { kinds: adminKinds, rows: adminRows },
];

export const kinds: Record<string, Kind> = Object.assign({}, ...parts.map((part) => part.kinds));

export const matrix: Row[] = parts.flatMap((part) => part.rows);

/**
 * The operations outside the matrix, each with why: what touches no one's data (the platform's own
 * reference data, the gateway's operations, pure computations), what is only ever the caller's
 * own with no route that could name another's, and the sign-in routes, whose credentials are the
 * authorization itself ("METHOD /path" as in /openapi.json).
 */
export const outsideTheMatrix: Record<string, string> = {
  // The embedded identity provider's sign-in locks (an address or a username, no one's data);
  // administrators only, as sign-in-lockout.test.ts checks.
  'GET /admin/sign-in-locks': "the sign-in locks: administrators' own view, no one's data",
  'DELETE /admin/sign-in-locks/users/{username}': 'lifts a sign-in lock: no one’s data',
  'DELETE /admin/sign-in-locks/addresses/{address}': 'lifts a sign-in lock: no one’s data',
  // The gateway itself.
  'GET /openapi.json': "the interface description: no one's data",
  'GET /': "a greeting: no one's data",
  'GET /uuid': "a fresh UUID: no one's data",
  'GET /livez': "liveness: no one's data",
  'GET /readyz': "readiness of the backends: no one's data",
  'GET /metrics': "Prometheus metrics, counts by route and backend: no user's data",
  // Signing in: the credentials presented are what is checked (test/routes/token-*.test.ts,
  // test/backends/identity/, test/e2e/identity-browser.test.ts).
  'GET /token': 'signs in with HTTP Basic credentials: they are the authorization',
  'GET /token/{idpName}': 'signs in with HTTP Basic credentials: they are the authorization',
  'GET /admin/token':
    "an administrator's token for another user, taken with HTTP Basic credentials (no bearer token, so no actor of the matrix can call it): test/routes/admin-authorization-first.test.ts refuses non-administrators, token-embedded.test.ts covers the rest",
  'GET /admin/token/{idpName}': 'as GET /admin/token',
  'GET /oidc/login': "the browser sign-in's redirect to the identity provider",
  'GET /oidc/callback': "the browser sign-in's return: exchanges the provider's code",
  'POST /oidc/refresh': "refreshes the browser's own session cookies",
  'GET /oidc/logout': "ends the browser's own session",
  'GET /oauth/callback/{apiName}':
    "the third-party API's redirect back to the web UI with its code and state: reads and changes nothing (the access-code routes are in the matrix)",
  'GET /realms/platform/.well-known/openid-configuration':
    "the embedded identity provider's discovery document: public",
  'GET /realms/platform/protocol/openid-connect/certs': "the provider's public keys: public",
  'GET /realms/platform/protocol/openid-connect/auth':
    'the sign-in page: credentials are the authorization',
  'POST /realms/platform/protocol/openid-connect/auth':
    'the sign-in form: credentials are the authorization',
  'POST /realms/platform/protocol/openid-connect/token':
    "the provider's token endpoint: a password, code or refresh token is the authorization",
  'GET /realms/platform/protocol/openid-connect/userinfo':
    "the claims of the access token presented: only ever the token's own user",
  'POST /realms/platform/protocol/openid-connect/userinfo': 'as GET userinfo',
  'GET /realms/platform/protocol/openid-connect/logout':
    "ends the browser's own session at the provider",
  'POST /realms/platform/protocol/openid-connect/logout':
    "ends the browser's own session at the provider",
  'GET /realms/platform/protocol/openid-connect/3p-cookies/step1.html':
    "a static page of the web UI's cookie check: no one's data",
  // The platform's reference data, the same for every caller.
  'GET /alerts/all':
    'global alerts, which administrators post for everyone (their routes are in the matrix)',
  'GET /alerts/active': 'as GET /alerts/all',
  'GET /filesystem/search-documentation': "the search query language's description",
  'GET /secured/filesystem/search-documentation': "the search query language's description",
  'GET /filesystem/metadata/templates':
    "metadata templates, the platform's (administrators keep them: in the matrix)",
  'GET /secured/filesystem/metadata/templates': 'as GET /filesystem/metadata/templates',
  'GET /filesystem/metadata/template/{templateId}': "a metadata template, the platform's",
  'GET /secured/filesystem/metadata/template/{templateId}': "a metadata template, the platform's",
  'GET /filesystem/metadata/template/{templateId}/blank-csv': "a metadata template's CSV",
  'GET /secured/filesystem/metadata/template/{templateId}/blank-csv': "a metadata template's CSV",
  'GET /filesystem/metadata/template/{templateId}/guide-csv': "a metadata template's CSV",
  'GET /secured/filesystem/metadata/template/{templateId}/guide-csv': "a metadata template's CSV",
  'GET /filesystem/metadata/template/{templateId}/zip-csv': "a metadata template's CSV files",
  'GET /secured/filesystem/metadata/template/{templateId}/zip-csv':
    "a metadata template's CSV files",
  'GET /filesystem/metadata/template/attr/{attributeId}': "a metadata template's attribute",
  'GET /secured/filesystem/metadata/template/attr/{attributeId}': "a metadata template's attribute",
  'GET /filetypes/type-list': 'the info types a file may be given',
  'GET /secured/filetypes/type-list': 'the info types a file may be given',
  'GET /permanent-id-requests/status-codes': "the requests' statuses",
  'GET /permanent-id-requests/types': 'the identifier types (DOI, ARK)',
  'GET /apps/elements': "the app editor's element types",
  'GET /apps/elements/{type}': "the app editor's element types",
  'GET /apps/categories':
    "the category tree: the public categories and the caller's own virtual ones (their apps, favourites, shared with them), with counts of what the caller sees",
  'GET /apps/categories/featured': 'Featured Apps: public apps, shown to anyone',
  'GET /apps/hierarchies': "the active ontology's hierarchies (class names): the platform's",
  'GET /tools/gpu-models': 'the GPU models a container may ask for',
  'GET /tool-requests/status-codes': "the tool requests' statuses",
  'GET /reference-genomes':
    "reference genomes, the platform's (administrators keep them: in the matrix)",
  'GET /reference-genomes/{referenceGenomeId}': "a reference genome, the platform's",
  'GET /webhooks/topics': 'the notification types a webhook may subscribe to',
  'GET /webhooks/types': 'the kinds of webhook',
  'GET /qms/plans': 'the subscription plans',
  'GET /qms/plans/{planId}': 'a subscription plan',
  'GET /qms/resource-types': 'the resource types plans count',
  'GET /instantlaunches/mappings/defaults/latest':
    "the platform's mapping of files to instant launches, which administrators keep (in the matrix)",
  // Computations on the request alone.
  'POST /apps/{systemId}/arg-preview':
    "the command line of the app sent in the body: no one's stored data",
  // The caller's own, with no route that could name another's: what is made is theirs.
  'POST /teams':
    "makes a team of the caller's, named under them (what it can be shared is in the matrix)",
  'POST /collaborator-lists': "makes a collaborator list of the caller's",
  'POST /communities': 'makes a community with the caller its admin',
  'POST /tools':
    "imports a tool of the caller's (making an app of another's tool is in the matrix)",
  'HEAD /bags': 'whether the caller has bags: 200 or 404 of their own',
  'GET /secured/logins': "the caller's own sign-in times",
  'GET /secured/notifications/count-messages': "counts of the caller's own notifications",
  'GET /analyses/stats': "counts of the caller's own analyses by status",
  'GET /secured/notifications/stream':
    "an event stream of the caller's own notifications (test/routes/notifications.test.ts): it never ends, so it is not walked here",
  'POST /support-email': "sends the caller's own message to the support address",
  // Other services' doors, by network address rather than user.
  'POST /send-notification':
    'a notification from another service: accepted only from SEND_NOTIFICATION_ALLOW (loopback), test/routes/notification-events.test.ts',
};
