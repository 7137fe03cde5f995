// Tags: analyses-quicklaunches (routes.md §11). Rows pass through to the analyses service, which
// takes the caller as `user=<name>@<uid-domain>`; creating one is a small route of its own
// because the gateway names the creator. Global defaults are changed by administrators only.
import type { FastifyInstance } from 'fastify';
import { Type, type TSchema } from 'typebox';
import {
  DefaultPatch,
  DefaultRequest,
  Deleted,
  Favorite,
  FavoriteRequest,
  GlobalDefault,
  QuickLaunch,
  QuickLaunchPatch,
  QuickLaunchRequest,
  UserDefault,
} from '../../common/quick-launch-shapes.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { qualifiedUsername } from '../../common/users.ts';
import { ErrorAnswer } from '../../common/error-replies.ts';

const errors = { 400: ErrorAnswer, 404: ErrorAnswer };
const ownerErrors = { ...errors, 403: ErrorAnswer };
const list = (item: TSchema) => Type.Array(item);

const AppInfo = Type.Object(
  {
    id: Type.String(),
    name: Type.String(),
    debug: Type.Boolean(),
    version_id: Type.String(),
    groups: Type.Array(
      Type.Unknown({
        description:
          'AppGroupJobView; parameter ids are `<step id>_<parameter id>`, `value` and `defaultValue` from the submission, paths as `{path}`',
      }),
    ),
  },
  {
    additionalProperties: true,
    description:
      'The launch form (AppJobView) of the saved app version, filled from the submission',
  },
);

const tag = 'analyses-quicklaunches' as const;
const favorites = '/quicklaunches/favorites';
const userDefaults = '/quicklaunches/defaults/user';
const globalDefaults = '/quicklaunches/defaults/global';
const backendPath = (path: string) => path.replace('/quicklaunches/', '/quicklaunch/');

export const quickLaunchPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/quicklaunches',
    backend: 'analyses',
    tag,
    summary: 'List the quick launches the user may view (own and public)',
    responses: { 200: list(QuickLaunch) },
  },
  {
    method: 'GET',
    path: '/quicklaunches/apps/{app-id}',
    backend: 'analyses',
    auth: 'optional',
    tag,
    summary: 'List the quick launches of an app',
    responses: { 200: list(QuickLaunch), ...errors },
  },
  {
    method: 'GET',
    path: '/quicklaunches/{ql-id}',
    backend: 'analyses',
    tag,
    summary: 'Get a quick launch',
    responses: { 200: QuickLaunch, ...errors },
  },
  {
    method: 'PATCH',
    path: '/quicklaunches/{ql-id}',
    backend: 'analyses',
    tag,
    summary: 'Update a quick launch (its creator only)',
    body: QuickLaunchPatch,
    responses: { 200: QuickLaunch, ...ownerErrors },
  },
  {
    method: 'DELETE',
    path: '/quicklaunches/{ql-id}',
    backend: 'analyses',
    tag,
    summary: 'Delete a quick launch (its creator only)',
    responses: { 200: Deleted, ...ownerErrors },
  },
  {
    method: 'GET',
    path: '/quicklaunches/{ql-id}/app-info',
    backend: 'analyses',
    tag,
    summary: 'Get the launch form filled from a quick launch',
    responses: { 200: AppInfo, ...errors },
  },

  {
    method: 'GET',
    path: favorites,
    backend: 'analyses',
    backendPath: backendPath(favorites),
    tag,
    summary: "List the user's quick-launch favorites",
    responses: { 200: list(Favorite) },
  },
  {
    method: 'POST',
    path: favorites,
    backend: 'analyses',
    backendPath: backendPath(favorites),
    tag,
    summary: 'Add a quick-launch favorite',
    body: FavoriteRequest,
    responses: { 200: Favorite, ...errors },
  },
  {
    method: ['GET', 'DELETE'],
    path: `${favorites}/{fave-id}`,
    backend: 'analyses',
    backendPath: backendPath(`${favorites}/{fave-id}`),
    tag,
    summary: 'Get or remove a quick-launch favorite',
    responses: { 200: Type.Union([Favorite, Deleted]), ...errors },
  },

  {
    method: 'GET',
    path: userDefaults,
    backend: 'analyses',
    backendPath: backendPath(userDefaults),
    tag,
    summary: "List the user's quick-launch defaults",
    responses: { 200: list(UserDefault) },
  },
  {
    method: 'POST',
    path: userDefaults,
    backend: 'analyses',
    backendPath: backendPath(userDefaults),
    tag,
    summary: "Set the user's default quick launch for an app",
    body: DefaultRequest,
    responses: { 200: UserDefault, ...errors },
  },
  {
    method: ['GET', 'DELETE'],
    path: `${userDefaults}/{id}`,
    backend: 'analyses',
    backendPath: backendPath(`${userDefaults}/{id}`),
    tag,
    summary: "Get or delete a user's quick-launch default",
    responses: { 200: Type.Union([UserDefault, Deleted]), ...errors },
  },
  {
    method: 'PATCH',
    path: `${userDefaults}/{id}`,
    backend: 'analyses',
    backendPath: backendPath(`${userDefaults}/{id}`),
    tag,
    summary: "Update a user's quick-launch default",
    body: DefaultPatch,
    responses: { 200: UserDefault, ...errors },
  },

  {
    method: 'GET',
    path: globalDefaults,
    backend: 'analyses',
    backendPath: backendPath(globalDefaults),
    tag,
    summary: 'List the global quick-launch defaults',
    responses: { 200: list(GlobalDefault) },
  },
  {
    method: 'POST',
    path: globalDefaults,
    backend: 'analyses',
    backendPath: backendPath(globalDefaults),
    auth: 'admin',
    tag,
    summary: "Set an app's global default quick launch (administrators)",
    body: DefaultRequest,
    responses: { 200: GlobalDefault, ...errors },
  },
  {
    method: 'GET',
    path: `${globalDefaults}/{id}`,
    backend: 'analyses',
    backendPath: backendPath(`${globalDefaults}/{id}`),
    tag,
    summary: 'Get a global quick-launch default',
    responses: { 200: GlobalDefault, ...errors },
  },
  {
    method: 'PATCH',
    path: `${globalDefaults}/{id}`,
    backend: 'analyses',
    backendPath: backendPath(`${globalDefaults}/{id}`),
    auth: 'admin',
    tag,
    summary: 'Update a global quick-launch default (administrators)',
    body: DefaultPatch,
    responses: { 200: GlobalDefault, ...errors },
  },
  {
    method: 'DELETE',
    path: `${globalDefaults}/{id}`,
    backend: 'analyses',
    backendPath: backendPath(`${globalDefaults}/{id}`),
    auth: 'admin',
    tag,
    summary: 'Delete a global quick-launch default (administrators)',
    responses: { 200: Deleted, ...errors },
  },
];

/** POST /quicklaunches: the client's quick launch, with `creator` = the caller (a client-sent one is dropped by the schema). */
export async function quickLaunchCreateRoute(
  app: FastifyInstance,
  {
    forwarder,
    config,
  }: { forwarder: Forwarder; config: Pick<GatewayConfig, 'uidDomain' | 'bodyLimitBytes'> },
): Promise<void> {
  app.post('/quicklaunches', {
    // The backend's answer is relayed as it is; the response schemas only document it.
    ...documentedNotEnforced,
    config: { auth: 'user' },
    schema: {
      tags: [tag],
      summary: 'Create a quick launch',
      description:
        'Forwarded to the analyses service (/quicklaunches) with `creator` = the caller; its answer is relayed unchanged. File and folder values must name paths the caller (for a public quick launch: everyone) can read; required parameters may be absent.',
      security: routeSecurity('user'),
      body: QuickLaunchRequest,
      response: {
        200: QuickLaunch,
        ...errors,
        default: { description: 'Relayed from the analyses service' },
      },
    },
    handler: async (request, reply) => {
      const creator = qualifiedUsername(request.identity!.username, config.uidDomain);
      return forwarder.forward(request, reply, 'analyses', {
        method: 'POST',
        path: '/quicklaunches',
        rawQuery: '',
        identity: request.identity,
        identityStyle: 'qualified-user',
        json: { ...(request.body as object), creator },
        bodyLimitBytes: config.bodyLimitBytes,
      });
    },
  });
}
