// The resource-usage and data-usage services' paths (backends.md §8), answered from the QMS's
// records: the usage summary the web UI's usage bar reads, a user's current data usage and whether
// it is over the data.size quota. `{user}` may be qualified (`alice@domain`) or short.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { shortUsername } from '../../common/users.ts';
import { currentSubscription, standing, type Db, type SubscriptionView } from './model.ts';
import { UsageSummary, UsageTotal } from '../../common/qms-shapes.ts';

export interface UsageRouteOptions {
  db: Db;
  now: () => number;
}

const UserParams = Type.Object({ user: Type.String({ minLength: 1, maxLength: 512 }) });
type UserRoute = { Params: { user: string } };

function total(subscription: SubscriptionView, name: string, at: number) {
  const usage = subscription.usages.find((each) => each.resource_type.name === name);
  const type =
    usage?.resource_type ??
    subscription.quotas.find((each) => each.resource_type.name === name)?.resource_type;
  return {
    user: subscription.user.username,
    total: usage?.usage ?? 0,
    unit: type?.unit ?? '',
    time: new Date(usage ? Date.parse(usage.last_modified_at) : at).toISOString(),
  };
}

export const resourceUsageRoutes: FastifyPluginAsync<UsageRouteOptions> = async (
  app,
  { db, now },
) => {
  app.get<UserRoute>(
    '/summary/:user',
    { schema: { params: UserParams, response: { 200: UsageSummary } } },
    async (request) => {
      const at = now();
      const subscription = await currentSubscription(db, shortUsername(request.params.user), at);
      return {
        cpu_usage: total(subscription, 'cpu.hours', at),
        data_usage: total(subscription, 'data.size', at),
        subscription,
        errors: [],
      };
    },
  );
};

export const dataUsageRoutes: FastifyPluginAsync<UsageRouteOptions> = async (app, { db, now }) => {
  app.get<UserRoute>(
    '/:user/data/current',
    { schema: { params: UserParams, response: { 200: UsageTotal } } },
    async (request) => {
      const at = now();
      return total(
        await currentSubscription(db, shortUsername(request.params.user), at),
        'data.size',
        at,
      );
    },
  );

  app.get<UserRoute>(
    '/:user/data/overage',
    {
      schema: {
        params: UserParams,
        response: {
          200: Type.Object({
            has_data_overage: Type.Boolean({
              description: 'The data.size usage has reached its quota',
            }),
          }),
        },
      },
    },
    async (request) => {
      const { quota, usage } = await standing(
        db,
        shortUsername(request.params.user),
        'data.size',
        now(),
      );
      return { has_data_overage: quota !== undefined && usage >= quota };
    },
  );
};
