// The qms service's paths (backends.md §8): plans, resource types, users' plans, subscriptions,
// quotas and usages; every body wrapped in `result`. `{u}` is a short username.
import type { FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import {
  choiceParam,
  countParam,
  optionalBooleanParam,
  singleParam,
} from '../../common/query-params.ts';
import { qualifiedUsername, shortUsername } from '../../common/users.ts';
import {
  changePlan,
  currentSubscription,
  currentSubscriptionId,
  plan,
  plans,
  recordUsage,
  resourceType,
  resourceTypes,
  subscriptionView,
  subscriptionViews,
  type Db,
} from './model.ts';
import {
  AddUsage,
  NewSubscriptions,
  Plan,
  QuotaBody,
  Quota,
  ResourceType,
  Result,
  Subscription,
  SubscriptionList,
  Usage,
} from '../../common/qms-shapes.ts';
import { randomUUID } from 'node:crypto';

export interface QmsRouteOptions {
  db: Db;
  uidDomain: string;
  now: () => number;
}

const UserParams = Type.Object({ user: Type.String({ minLength: 1, maxLength: 512 }) });

const sortFields = [
  'username',
  'plan',
  'effective_start_date',
  'effective_end_date',
  'paid',
] as const;

export const qmsRoutes: FastifyPluginAsync<QmsRouteOptions> = async (
  app,
  { db, uidDomain, now },
) => {
  const knownUsers = async (usernames: string[]) => {
    const qualified = usernames.map((name) => qualifiedUsername(name, uidDomain));
    const rows = await db
      .selectFrom('users')
      .select('username')
      .where('username', 'in', qualified)
      .execute();
    return new Set(rows.map((row) => shortUsername(row.username)));
  };

  app.get('/v1/plans', { schema: { response: { 200: Result(Type.Array(Plan)) } } }, async () => ({
    result: await plans(db),
  }));

  app.get<{ Params: { id: string } }>(
    '/v1/plans/:id',
    { schema: { params: Type.Object({ id: Type.String() }), response: { 200: Result(Plan) } } },
    async (request) => ({ result: await plan(db, request.params.id) }),
  );

  app.get(
    '/v1/resource-types',
    { schema: { response: { 200: Result(Type.Array(ResourceType)) } } },
    async () => ({ result: await resourceTypes(db) }),
  );

  type UserRoute = { Params: { user: string } };
  app.get<UserRoute>(
    '/v1/users/:user/plan',
    { schema: { params: UserParams, response: { 200: Result(Subscription) } } },
    async (request) => ({
      result: await currentSubscription(db, shortUsername(request.params.user), now()),
    }),
  );

  app.get<UserRoute>(
    '/v1/users/:user/subscriptions',
    { schema: { params: UserParams, response: { 200: Result(SubscriptionList) } } },
    async (request) => {
      const username = shortUsername(request.params.user);
      await currentSubscriptionId(db, username, now());
      const rows = await db
        .selectFrom('qms_subscriptions')
        .select('id')
        .where('username', '=', username)
        .orderBy('effective_start_date', 'desc')
        .orderBy('created_at', 'desc')
        .execute();
      const subscriptions = await subscriptionViews(
        db,
        rows.map((row) => row.id),
      );
      return { result: { subscriptions, total: subscriptions.length } };
    },
  );

  app.get<UserRoute>(
    '/v1/usages/:user',
    { schema: { params: UserParams, response: { 200: Result(Type.Array(Usage)) } } },
    async (request) => ({
      result: (await currentSubscription(db, shortUsername(request.params.user), now())).usages,
    }),
  );

  app.post(
    '/v1/usages',
    { schema: { body: AddUsage, response: { 200: Result(Usage) } } },
    async (request) => {
      const body = request.body as {
        username: string;
        resource_name: string;
        usage_value: number;
        update_type: 'ADD' | 'SET';
      };
      return {
        result: await recordUsage(
          db,
          {
            username: shortUsername(body.username),
            resourceName: body.resource_name,
            value: body.usage_value,
            updateType: body.update_type,
          },
          now(),
        ),
      };
    },
  );

  app.get(
    '/v1/subscriptions',
    {
      schema: {
        querystring: Type.Object({
          search: Type.Optional(Type.String({ maxLength: 512 })),
          'sort-field': Type.Optional(Type.String()),
          'sort-dir': Type.Optional(Type.String()),
          limit: Type.Optional(Type.String()),
          offset: Type.Optional(Type.String()),
        }),
        response: { 200: Result(SubscriptionList) },
      },
    },
    async (request) => {
      const search = singleParam(request.query, 'search') ?? '';
      const field = choiceParam(request.query, 'sort-field', sortFields, 'username');
      const dir = choiceParam(request.query, 'sort-dir', ['asc', 'desc'], 'asc');
      const limit = countParam(request.query, 'limit', 50);
      const offset = countParam(request.query, 'offset', 0);
      let query = db
        .selectFrom('qms_subscriptions')
        .innerJoin('qms_plans', 'qms_plans.id', 'qms_subscriptions.plan_id');
      if (search !== '') {
        const pattern = `%${search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
        query = query.where((eb) => eb(eb.fn('lower', ['username']), 'like', eb.val(pattern)));
      }
      const { count } = await query
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .executeTakeFirstOrThrow();
      const column =
        field === 'plan'
          ? 'qms_plans.name'
          : field === 'username'
            ? 'qms_subscriptions.username'
            : (`qms_subscriptions.${field}` as const);
      const rows = await query
        .select('qms_subscriptions.id')
        .orderBy(column, dir)
        .orderBy('qms_subscriptions.effective_start_date', 'desc')
        .orderBy('qms_subscriptions.id')
        .limit(limit)
        .offset(offset)
        .execute();
      return {
        result: {
          subscriptions: await subscriptionViews(
            db,
            rows.map((row) => row.id),
          ),
          total: Number(count),
        },
      };
    },
  );

  app.post(
    '/v1/subscriptions',
    {
      schema: {
        body: NewSubscriptions,
        response: { 200: Result(Type.Object({ subscriptions: Type.Array(Subscription) })) },
      },
    },
    async (request) => {
      const { subscriptions } = request.body as {
        subscriptions: { username: string; plan_name: string; paid?: boolean; periods?: number }[];
      };
      const usernames = subscriptions.map((each) => shortUsername(each.username));
      const known = await knownUsers(usernames);
      const unknown = [...new Set(usernames.filter((name) => !known.has(name)))];
      if (unknown.length > 0)
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `unknown users: ${unknown.join(', ')}`, {
          field: 'subscriptions',
          users: unknown,
        });
      const planViews = [];
      for (const each of subscriptions) planViews.push(await plan(db, each.plan_name));
      const ids: string[] = [];
      // In the request's order, each ending the one before it of the same user.
      for (const [index, each] of subscriptions.entries())
        ids.push(
          await changePlan(db, usernames[index]!, planViews[index]!, {
            paid: each.paid ?? true,
            now: now(),
            ...(each.periods !== undefined ? { years: each.periods } : {}),
          }),
        );
      return { result: { subscriptions: await subscriptionViews(db, ids) } };
    },
  );

  type QuotaRoute = { Params: { user: string; resourceType: string } };
  app.post<QuotaRoute>(
    '/v1/users/:user/plan/:resourceType/quota',
    {
      schema: {
        params: Type.Object({ user: Type.String(), resourceType: Type.String() }),
        body: QuotaBody,
        response: { 200: Result(Quota) },
      },
    },
    async (request) => {
      const username = shortUsername(request.params.user);
      if (!(await knownUsers([username])).has(username))
        throw gatewayError('ERR_NOT_FOUND', `no user "${username}"`, { user: username });
      const type = await resourceType(db, request.params.resourceType);
      const { quota } = request.body as { quota: number };
      const at = now();
      const subscriptionId = await currentSubscriptionId(db, username, at);
      await db
        .insertInto('qms_quotas')
        .values({
          id: randomUUID(),
          subscription_id: subscriptionId,
          resource_type_id: type.id,
          value: quota,
          created_at: at,
          last_modified_at: at,
        })
        .onConflict((conflict) =>
          conflict
            .columns(['subscription_id', 'resource_type_id'])
            .doUpdateSet({ value: quota, last_modified_at: at }),
        )
        .execute();
      const view = await subscriptionView(db, subscriptionId);
      return { result: view.quotas.find((each) => each.resource_type.id === type.id)! };
    },
  );

  type PlanRoute = { Params: { user: string; plan: string } };
  app.put<PlanRoute>(
    '/v1/users/:user/:plan',
    {
      schema: {
        params: Type.Object({ user: Type.String(), plan: Type.String() }),
        querystring: Type.Object({
          paid: Type.Optional(Type.String({ description: 'true (default) or false' })),
          periods: Type.Optional(Type.String({ description: 'Years (default 1)' })),
        }),
        response: { 200: Result(Subscription) },
      },
    },
    async (request) => {
      const username = shortUsername(request.params.user);
      if (!(await knownUsers([username])).has(username))
        throw gatewayError('ERR_NOT_FOUND', `no user "${username}"`, { user: username });
      const years = countParam(request.query, 'periods', 1);
      if (years < 1 || years > 100)
        throw gatewayError('ERR_BAD_QUERY_PARAMETER', '"periods" must be 1 to 100', {
          field: 'periods',
        });
      const id = await changePlan(db, username, await plan(db, request.params.plan), {
        paid: optionalBooleanParam(request.query, 'paid') ?? true,
        now: now(),
        years,
      });
      return { result: await subscriptionView(db, id) };
    },
  );
};
