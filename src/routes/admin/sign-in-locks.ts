// Administrators' way to lift a sign-in lock of the embedded identity provider
// (docs/authentication.md, "Failed sign-ins"): `GET /admin/sign-in-locks` lists the usernames and
// addresses with failed passwords counted, `DELETE /admin/sign-in-locks/users/{username}` and
// `DELETE /admin/sign-in-locks/addresses/{address}` forget one's failures and lift its lock.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { ErrorAnswer } from '../../common/error-replies.ts';
import { gatewayError } from '../../common/errors.ts';
import type { SignInLocks } from '../../common/identity-provider.ts';
import { routeSecurity } from '../../http/openapi.ts';
import type { AreaDeps } from '../shared/area.ts';

const SignInLockView = Type.Object({
  kind: Type.Union([Type.Literal('user'), Type.Literal('address')]),
  name: Type.String({
    description: 'The username, or the client address (an IPv6 network as `<address>/64`)',
  }),
  failures: Type.Integer({ description: 'Failed passwords in the current window' }),
  locked_until: Type.Optional(
    Type.Integer({ description: 'While locked: when the lock ends, ms since the epoch' }),
  ),
  retry_after_seconds: Type.Optional(Type.Integer({ description: 'While locked: seconds left' })),
});

const Lifted = Type.Object({
  kind: Type.Union([Type.Literal('user'), Type.Literal('address')]),
  name: Type.String({
    description: 'The username, or the address as counted (IPv6: `<address>/64`)',
  }),
  lifted: Type.Boolean({
    description: 'Whether there were failures or a lock to forget (false: nothing was counted)',
  }),
});

export async function signInLockRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const locks = (): SignInLocks => {
    if (!deps.identityProvider)
      throw gatewayError(
        'ERR_NOT_IMPLEMENTED',
        'The embedded identity provider is off (AUTH_TOKEN_URL, AUTH_JWKS_URL or AUTH_PUBLIC_KEYS is set): failed sign-ins are limited by the configured identity provider.',
      );
    return deps.identityProvider.signInLocks;
  };
  const notServed = { 501: ErrorAnswer };

  app.get('/admin/sign-in-locks', {
    config: { auth: 'admin' },
    schema: {
      tags: ['admin'],
      summary: 'Usernames and client addresses with failed sign-ins counted, locked ones first',
      description:
        'The embedded identity provider counts failed passwords per username and per address; past SIGNIN_MAX_FAILURES (SIGNIN_ADDRESS_MAX_FAILURES) in a window it locks them. 501 when the embedded provider is off.',
      security: routeSecurity('admin'),
      response: { 200: Type.Object({ locks: Type.Array(SignInLockView) }), ...notServed },
    },
    handler: async () => ({
      locks: (await locks().list()).map((lock) => ({
        kind: lock.kind,
        name: lock.name,
        failures: lock.failures,
        ...(lock.lockedUntil === undefined
          ? {}
          : { locked_until: lock.lockedUntil, retry_after_seconds: lock.retryAfterSeconds }),
      })),
    }),
  });

  app.delete('/admin/sign-in-locks/users/:username', {
    config: { auth: 'admin' },
    schema: {
      tags: ['admin'],
      summary: "Lift a username's sign-in lock and forget its failed passwords",
      security: routeSecurity('admin'),
      params: Type.Object({ username: Type.String({ minLength: 1 }) }),
      response: { 200: Lifted, ...notServed },
    },
    handler: async (request) => {
      const { username } = request.params as { username: string };
      return { kind: 'user', name: username, lifted: await locks().liftUser(username) };
    },
  });

  app.delete('/admin/sign-in-locks/addresses/:address', {
    config: { auth: 'admin' },
    schema: {
      tags: ['admin'],
      summary: "Lift a client address's sign-in lock and forget its failed passwords",
      description:
        'An IPv4 address, or an IPv6 address standing for its /64 (any address of it, e.g. the listed `<address>/64` without `/64`). Not an address: 400.',
      security: routeSecurity('admin'),
      params: Type.Object({ address: Type.String({ minLength: 1 }) }),
      response: { 200: Lifted, 400: ErrorAnswer, ...notServed },
    },
    handler: async (request) => {
      const { address } = request.params as { address: string };
      const answer = await locks().liftAddress(address);
      if (!answer)
        throw gatewayError('ERR_BAD_REQUEST', `"${address}" is not an IP address`, { address });
      return { kind: 'address', ...answer };
    },
  });
}
