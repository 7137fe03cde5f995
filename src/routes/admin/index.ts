// The admin area (routes.md §24, and §9 ontologies, §8 the admin's view of OAuth tokens): tags
// admin, admin-settings, admin-user-info, admin-token. Passthroughs, admins only; the gateway's own
// `/admin/config` and `/admin/status` are in config-status.ts, the embedded identity provider's
// sign-in locks in sign-in-locks.ts.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorAnswer } from '../../common/error-replies.ts';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { AreaDeps } from '../shared/area.ts';
import type { Tag } from '../shared/tags.ts';
import { adminGatewayRoutes } from './config-status.ts';
import { ontologyPassthroughs } from './ontologies.ts';
import { signInLockRoutes } from './sign-in-locks.ts';

/** The area's own routes: the gateway's configuration and status, and the sign-in locks. */
export async function adminRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  await adminGatewayRoutes(app, deps);
  await signInLockRoutes(app, deps);
}

/** A group as the groups service shows it (`detail` with `details=true`). */
const GroupView = Type.Object({
  id: Type.String(),
  name: Type.String(),
  type: Type.Literal('group'),
  description: Type.String(),
  display_extension: Type.String(),
  display_name: Type.String(),
  extension: Type.String(),
  detail: Type.Optional(
    Type.Object({
      created_at: Type.Integer({ description: 'Milliseconds since the epoch' }),
      created_by: Type.String(),
      modified_at: Type.Integer(),
      has_composite: Type.Boolean(),
      is_composite_factor: Type.Boolean(),
      type_names: Type.Array(Type.String()),
    }),
  ),
});

export const adminPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/admin/settings/concurrent-job-limits',
    backend: 'analyses',
    backendPath: '/settings/concurrent-job-limits',
    auth: 'admin',
    tag: 'admin-settings',
    summary: 'List concurrent job limits',
  },
  {
    method: ['GET', 'PUT', 'DELETE'],
    path: '/admin/settings/concurrent-job-limits/{username}',
    backend: 'analyses',
    backendPath: '/settings/concurrent-job-limits/{username}',
    auth: 'admin',
    tag: 'admin-settings',
    summary: "Get, set or reset a user's concurrent job limit",
  },
  {
    method: 'GET',
    path: '/admin/groups/workshop',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Get the workshop group',
  },
  {
    method: ['GET', 'PUT'],
    path: '/admin/groups/workshop/members',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List or replace the workshop group members',
  },
  {
    method: 'DELETE',
    path: '/admin/groups/de-users/members/{subject-id}',
    backend: 'groups',
    backendPath: '/admin/groups/de-users/members/{subject-id}',
    auth: 'admin',
    tag: 'admin',
    summary: 'Remove a user from the platform users group (`de-users`)',
    responses: {
      200: Type.Object({ success: Type.Literal(true), subject_id: Type.String() }),
      404: ErrorAnswer,
    },
  },
  {
    method: 'GET',
    path: '/admin/users/{username}/groups',
    backend: 'groups',
    auth: 'admin',
    tag: 'admin-user-info',
    summary: 'The groups a user is a member of',
    query: Type.Object({
      details: Type.Optional(
        Type.Boolean({ description: 'Add `detail` (who made each group and when)' }),
      ),
    }),
    responses: { 200: Type.Object({ groups: Type.Array(GroupView) }), 404: ErrorAnswer },
  },
  {
    method: ['GET', 'POST'],
    path: '/admin/integration-data',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'List or add integration data',
  },
  {
    method: ['GET', 'PUT', 'DELETE'],
    path: '/admin/integration-data/{id}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary: 'Get, update or delete integration data',
  },
  {
    method: ['GET', 'DELETE'],
    path: '/admin/oauth/token-info/{api-name}',
    backend: 'apps',
    auth: 'admin',
    tag: 'admin',
    summary:
      'Get (`{access_token, expires_at, refresh_token, webapp}`) or delete the OAuth token of `proxy-user` (default: the caller)',
  },
  ...ontologyPassthroughs,
];
