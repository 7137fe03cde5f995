// Tag dashboard (routes.md §23): the web UI's home page, signed in or not. With DASHBOARD_URL set
// it is forwarded to the dashboard aggregator (`/users/{user@domain}` or `/`); otherwise the gateway
// gathers it from the embedded services in one bounded set of calls (src/clients/dashboard.ts),
// whatever the limit. A part whose backend fails is empty and named in `errors`. Administrators
// post and delete the feeds' items (`/admin/dashboard/feeds...`, kept by the user-info service).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { toGatewayError } from '../common/error-replies.ts';
import { countParam } from '../common/query-params.ts';
import { qualifiedUsername } from '../common/users.ts';
import {
  dashboardApps,
  dashboardFeeds,
  dashboardInstantLaunches,
  recentAnalyses,
  type DashboardCall,
} from '../clients/dashboard.ts';
import { anyTypeAsJson, type PassthroughRoute } from '../http/passthrough.ts';
import { documentedNotEnforced, routeSecurity } from '../http/openapi.ts';
import type { AreaDeps } from './shared/area.ts';
import type { Tag } from './shared/tags.ts';

const maxLimit = 100;
const items = Type.Array(Type.Unknown());
/** An app item: a `GET /apps` listing entry with its integrator (the web UI's app card reads `username`). */
const appItems = Type.Array(
  Type.Object(
    {
      id: Type.String(),
      system_id: Type.String(),
      name: Type.String(),
      description: Type.String(),
      username: Type.String({
        description:
          'The integrator\'s qualified username (the web UI shows it, less its domain, as "Integrated by")',
      }),
      integrator_name: Type.Optional(
        Type.String({
          description:
            "The integrator's name: the app's, else the user's first and last name, else the username (the embedded platform)",
        }),
      ),
      integrator_email: Type.Optional(Type.String()),
      integration_date: Type.String({ description: 'ISO 8601' }),
      edited_date: Type.String({ description: 'ISO 8601' }),
    },
    { additionalProperties: true },
  ),
);
const DashboardSchema = Type.Object({
  apps: Type.Object({
    recentlyAdded: appItems,
    public: appItems,
    recentlyUsed: appItems,
    popularFeatured: appItems,
  }),
  analyses: Type.Object({ recent: items, running: items }),
  feeds: Type.Object({ news: items, events: items, videos: items }),
  instantLaunches: items,
  errors: Type.Optional(
    Type.Array(
      Type.Object({ part: Type.String(), status: Type.Integer(), reason: Type.String() }),
      { description: 'Parts whose backend failed (they are empty)' },
    ),
  ),
});

export const dashboardPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/admin/dashboard/feeds',
    backend: 'user-info',
    backendPath: '/feeds',
    auth: 'admin',
    identity: 'none',
    tag: 'dashboard',
    summary: "List the dashboard feeds' newest items (limit per feed, default 8)",
  },
  {
    method: 'POST',
    path: '/admin/dashboard/feeds/{feed}',
    backend: 'user-info',
    backendPath: '/feeds/{feed}',
    auth: 'admin',
    identity: 'none',
    tag: 'dashboard',
    summary: 'Post an item to a dashboard feed (news, events or videos)',
    consumes: anyTypeAsJson,
  },
  {
    method: 'DELETE',
    path: '/admin/dashboard/feeds/items/{id}',
    backend: 'user-info',
    backendPath: '/feeds/items/{id}',
    auth: 'admin',
    identity: 'none',
    tag: 'dashboard',
    summary: 'Delete an item of a dashboard feed',
  },
];

export async function dashboardRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const { forwarder, config } = deps;

  const gathered = async (call: DashboardCall) => {
    const errors: { part: string; status: number; reason: string }[] = [];
    const part = async <T>(name: string, fallback: T, work: () => Promise<T>): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        const failure = toGatewayError(error as Error);
        errors.push({ part: name, status: failure.statusCode, reason: failure.reason });
        return fallback;
      }
    };
    const signedIn = call.identity !== undefined;
    const [apps, recent, running, feeds, instantLaunches] = await Promise.all([
      part('apps', { recentlyAdded: [], public: [], recentlyUsed: [], popularFeatured: [] }, () =>
        dashboardApps(call),
      ),
      signedIn ? part('analyses', [], () => recentAnalyses(call)) : [],
      signedIn ? part('analyses', [], () => recentAnalyses(call, 'Running')) : [],
      part('feeds', { news: [], events: [], videos: [] }, () => dashboardFeeds(call)),
      part('instantLaunches', [], () => dashboardInstantLaunches(call)),
    ]);
    return {
      apps,
      analyses: { recent, running },
      feeds,
      instantLaunches,
      ...(errors.length > 0 ? { errors } : {}),
    };
  };

  app.get('/dashboard', {
    config: { auth: 'optional' },
    ...documentedNotEnforced,
    schema: {
      tags: ['dashboard'],
      summary:
        "The home page: recent and public apps, the caller's analyses, feeds, instant launches",
      security: routeSecurity('optional'),
      querystring: Type.Object({
        limit: Type.Optional(
          Type.String({
            pattern: '^\\d+$',
            description: `Items per list (default 8, at most ${maxLimit})`,
          }),
        ),
      }),
      response: { 200: DashboardSchema },
    },
    handler: async (request: FastifyRequest, reply) => {
      const limit = Math.min(countParam(request.query, 'limit', 8), maxLimit);
      const identity = request.identity;
      if (config.backends.dashboard.url) {
        return forwarder.forward(request, reply, 'dashboard', {
          method: 'GET',
          path: identity
            ? `/users/${encodeURIComponent(qualifiedUsername(identity.username, config.uidDomain)).replace(/%40/g, '@')}`
            : '/',
          rawQuery: `limit=${limit}`,
          identity,
          identityStyle: 'path',
          bodyLimitBytes: config.bodyLimitBytes,
        });
      }
      return gathered({ forwarder, identity, requestId: request.id, limit });
    },
  });
}
