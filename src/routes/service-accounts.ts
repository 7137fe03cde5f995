// Tags: service-account-email, service-account-qms, service-account-user-info. routes.md §25: routes
// for other services' accounts, each allowed to the holders of one configured realm role
// (SERVICE_ROLE_EMAILER, SERVICE_ROLE_SUBSCRIPTION_UPDATER, SERVICE_ROLE_LDAP_READER). A service
// token names no user of the platform, so these routes forward no `user` of their own: the user
// they concern is in the path. `/service/users/{username}` asks the user portal when USER_PORTAL_URL
// is set, else answers from the platform's records of the users it has seen.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { gatewayError } from '../common/errors.ts';
import { qualifiedUsername, shortUsername } from '../common/users.ts';
import { routeSecurity } from '../http/openapi.ts';
import type { PassthroughRoute } from '../http/passthrough.ts';
import { addonRelayRoutes, userPlanRows } from './qms.ts';
import type { AreaDeps } from './shared/area.ts';
import type { Tag } from './shared/tags.ts';

const subscriptionUpdater = { serviceRole: 'subscription-updater' } as const;
const ldapReader = { serviceRole: 'ldap-reader' } as const;

export const serviceAccountPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/service/email',
    backend: 'email',
    backendPath: '/',
    auth: { serviceRole: 'emailer' },
    tag: 'service-account-email',
    summary: 'Send an email',
  },
  ...userPlanRows('/service/qms', subscriptionUpdater, 'service-account-qms'),
];

const UserDetails = Type.Object({
  id: Type.String({ description: 'Short username' }),
  username: Type.String({ description: 'Short username' }),
  email: Type.String(),
  first_name: Type.String(),
  last_name: Type.String(),
  name: Type.String(),
});

export async function serviceAccountRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  addonRelayRoutes(app, deps, {
    prefix: '/service/qms',
    auth: subscriptionUpdater,
    tag: 'service-account-qms',
    manageAddons: false,
  });

  app.get<{ Params: { username: string } }>(
    '/service/users/:username',
    {
      config: { auth: ldapReader },
      schema: {
        tags: ['service-account-user-info'],
        summary: "Get a user's directory details",
        description:
          "From the user portal (`GET /ldap/users/{username}`) when USER_PORTAL_URL is set; otherwise from the platform's records of the users it has seen.",
        security: routeSecurity(ldapReader),
        params: Type.Object({ username: Type.String({ minLength: 1, maxLength: 512 }) }),
        response: { 200: UserDetails },
      },
    },
    async (request, reply) => {
      const username = shortUsername(request.params.username);
      if (deps.remoteBackends.includes('user-portal'))
        return deps.forwarder.forward(request, reply, 'user-portal', {
          method: 'GET',
          path: `/ldap/users/${encodeURIComponent(username)}`,
          rawQuery: '',
          identityStyle: 'none',
          bodyLimitBytes: deps.config.bodyLimitBytes,
        });
      const row = await deps.store.db
        .selectFrom('users')
        .select(['username', 'email', 'first_name', 'last_name'])
        .where('username', '=', qualifiedUsername(username, deps.config.uidDomain))
        .executeTakeFirst();
      if (!row) throw gatewayError('ERR_NOT_FOUND', `no user "${username}"`, { user: username });
      const first = row.first_name ?? '';
      const last = row.last_name ?? '';
      return {
        id: username,
        username,
        email: row.email ?? '',
        first_name: first,
        last_name: last,
        name: [first, last].filter((part) => part !== '').join(' '),
      };
    },
  );
}
