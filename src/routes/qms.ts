// Tags: qms, admin-qms, resource-usage. routes.md §23: plans, resource types, users' subscriptions,
// quotas and usages at the qms service (bodies wrapped in `result`), add-ons at the subscriptions
// service (`{addons}`, `{addon}`), usage summaries at resource-usage and data-usage. Most are
// passthroughs; the add-on calls whose method or path the backend names differently (creating an
// add-on is the service's PUT, updating one its POST with a camelCase field mask; applying one to
// a subscription names it in the path) are relayed by addonRelayRoutes, which the service-account
// routes (§25) use too.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type TSchema } from 'typebox';
import type { AuthLevel } from '../http/auth.ts';
import { documentedNotEnforced, routeSecurity } from '../http/openapi.ts';
import type { PassthroughRoute } from '../http/passthrough.ts';
import type { BackendName } from '../common/backend-names.ts';
import {
  AddOn,
  AddUsage,
  NewAddOn,
  NewSubscriptions,
  Plan,
  Quota,
  QuotaBody,
  ResourceType,
  Result,
  Subscription,
  SubscriptionAddon,
  SubscriptionList,
  Usage,
  UsageSummary,
  UsageTotal,
} from '../common/qms-shapes.ts';
import type { AreaDeps } from './shared/area.ts';
import type { Tag } from './shared/tags.ts';

const ok = (schema: TSchema) => ({ 200: schema });

export const SubscriptionQuery = Type.Object({
  search: Type.Optional(Type.String({ description: 'Part of a username' })),
  'sort-field': Type.Optional(
    Type.String({
      enum: ['username', 'plan', 'effective_start_date', 'effective_end_date', 'paid'],
      default: 'username',
    }),
  ),
  'sort-dir': Type.Optional(Type.String({ enum: ['asc', 'desc', 'ASC', 'DESC'], default: 'asc' })),
  limit: Type.Optional(Type.Integer({ minimum: 0, default: 50 })),
  offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
});

/** The qms and subscriptions rows a user's (or a service account's) plan routes share. */
export const userPlanRows = (
  prefix: string,
  auth: AuthLevel,
  tag: Tag,
): PassthroughRoute<Tag>[] => [
  {
    method: 'GET',
    path: `${prefix}/users/{username}/plan`,
    backend: 'qms',
    backendPath: '/v1/users/{username}/plan',
    auth,
    tag,
    summary: "Get a user's plan: their current subscription",
    responses: ok(Result(Subscription)),
  },
  {
    method: 'GET',
    path: `${prefix}/users/{username}/subscriptions`,
    backend: 'qms',
    backendPath: '/v1/users/{username}/subscriptions',
    auth,
    tag,
    summary: "List a user's subscriptions",
    responses: ok(Result(SubscriptionList)),
  },
  {
    method: 'PUT',
    path: `${prefix}/users/{username}/plan/{plan-name}`,
    backend: 'qms',
    backendPath: '/v1/users/{username}/{plan-name}',
    auth,
    tag,
    summary: "Change a user's plan (a new subscription from now; `paid` defaults to true)",
    noBody: true,
    query: Type.Object({
      paid: Type.Optional(Type.Boolean({ default: true })),
      periods: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 1 })),
    }),
    responses: ok(Result(Subscription)),
  },
  {
    method: 'GET',
    path: `${prefix}/addons`,
    backend: 'subscriptions',
    backendPath: '/addons',
    auth,
    tag,
    summary: 'List add-ons',
    responses: ok(Type.Object({ addons: Type.Array(AddOn) })),
  },
  {
    method: 'GET',
    path: `${prefix}/subscriptions/{sub-uuid}/addons`,
    backend: 'subscriptions',
    backendPath: '/subscriptions/{sub-uuid}/addons',
    auth,
    tag,
    summary: 'List the add-ons applied to a subscription',
    responses: ok(Type.Object({ subscription_addons: Type.Array(SubscriptionAddon) })),
  },
  {
    method: ['GET', 'DELETE'],
    path: `${prefix}/subscriptions/{sub-uuid}/addons/{uuid}`,
    backend: 'subscriptions',
    backendPath: '/subscriptions/{sub-uuid}/addons/{uuid}',
    auth,
    tag,
    summary: 'Get or remove an add-on applied to a subscription',
    responses: ok(Type.Object({ subscription_addon: SubscriptionAddon })),
  },
];

export const qmsPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/qms/plans',
    backend: 'qms',
    backendPath: '/v1/plans',
    auth: 'optional',
    tag: 'qms',
    summary: 'List plans',
    responses: ok(Result(Type.Array(Plan))),
  },
  {
    method: 'GET',
    path: '/qms/plans/{plan-id}',
    backend: 'qms',
    backendPath: '/v1/plans/{plan-id}',
    auth: 'optional',
    tag: 'qms',
    summary: 'Get a plan (by id or name)',
    responses: ok(Result(Plan)),
  },
  {
    method: 'GET',
    path: '/qms/resource-types',
    backend: 'qms',
    backendPath: '/v1/resource-types',
    auth: 'optional',
    tag: 'qms',
    summary: 'List resource types',
    responses: ok(Result(Type.Array(ResourceType))),
  },
  {
    method: 'GET',
    path: '/qms/user/plan',
    backend: 'qms',
    backendPath: '/v1/users/{user}/plan',
    tag: 'qms',
    summary: "Get the user's plan: their current subscription",
    responses: ok(Result(Subscription)),
  },
  {
    method: 'GET',
    path: '/qms/user/subscriptions',
    backend: 'qms',
    backendPath: '/v1/users/{user}/subscriptions',
    tag: 'qms',
    summary: "List the user's subscriptions",
    responses: ok(Result(SubscriptionList)),
  },
  {
    method: 'GET',
    path: '/qms/user/usages',
    backend: 'qms',
    backendPath: '/v1/usages/{user}',
    tag: 'qms',
    summary: "List the user's resource usages",
    responses: ok(Result(Type.Array(Usage))),
  },
  {
    method: 'POST',
    path: '/admin/qms/usages',
    backend: 'qms',
    backendPath: '/v1/usages',
    auth: 'admin',
    tag: 'admin-qms',
    summary: 'Add to (ADD) or set (SET) a resource usage of a user',
    body: AddUsage,
    responses: ok(Result(Usage)),
  },
  {
    method: 'GET',
    path: '/admin/qms/subscriptions',
    backend: 'qms',
    backendPath: '/v1/subscriptions',
    auth: 'admin',
    tag: 'admin-qms',
    summary: 'List subscriptions',
    query: SubscriptionQuery,
    responses: ok(Result(SubscriptionList)),
  },
  {
    method: 'POST',
    path: '/admin/qms/subscriptions',
    backend: 'qms',
    backendPath: '/v1/subscriptions',
    auth: 'admin',
    tag: 'admin-qms',
    summary:
      'Subscribe users to plans, in the order given; refused as a whole when a username is unknown',
    body: NewSubscriptions,
    responses: ok(Result(Type.Object({ subscriptions: Type.Array(Subscription) }))),
  },
  ...userPlanRows('/admin/qms', 'admin', 'admin-qms'),
  {
    method: 'DELETE',
    path: '/admin/qms/addons/{uuid}',
    backend: 'subscriptions',
    backendPath: '/addons/{uuid}',
    auth: 'admin',
    tag: 'admin-qms',
    summary: 'Delete an add-on (refused while it is applied to a subscription)',
    responses: ok(Type.Object({ addon: AddOn })),
  },
  {
    method: 'GET',
    path: '/admin/qms/users/{username}/usages',
    backend: 'qms',
    backendPath: '/v1/usages/{username}',
    auth: 'admin',
    tag: 'admin-qms',
    summary: "List a user's resource usages",
    responses: ok(Result(Type.Array(Usage))),
  },
  {
    method: 'POST',
    path: '/admin/qms/users/{username}/plan/{resource-type}/quota',
    backend: 'qms',
    backendPath: '/v1/users/{username}/plan/{resource-type}/quota',
    auth: 'admin',
    tag: 'admin-qms',
    summary: "Set a user's quota of a resource type in their current subscription",
    body: QuotaBody,
    responses: ok(Result(Quota)),
  },
  {
    method: 'GET',
    path: '/resource-usage/summary',
    backend: 'resource-usage',
    backendPath: '/summary/{qualified-user}',
    tag: 'resource-usage',
    summary: "Summarize the user's resource usage",
    responses: ok(UsageSummary),
  },
  {
    method: 'GET',
    path: '/resource-usage/data/current',
    backend: 'data-usage',
    backendPath: '/{qualified-user}/data/current',
    tag: 'resource-usage',
    summary: "Get the user's current data usage",
    responses: ok(UsageTotal),
  },
];

/** A JSON call to a backend in the caller's stead, with no identity (the QMS's add-on paths take none). */
function relay(
  deps: AreaDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  backend: BackendName,
  method: string,
  path: string,
  json: unknown,
) {
  return deps.forwarder.forward(request, reply, backend, {
    method,
    path,
    rawQuery: '',
    identity: request.identity,
    identityStyle: 'none',
    json,
    bodyLimitBytes: deps.config.bodyLimitBytes,
  });
}

const camel = (name: string) =>
  name.replace(/_([a-z])/g, (_match, letter: string) => letter.toUpperCase());

/** The update of an add-on or an applied add-on: the fields given, and their camelCase mask. */
function maskedUpdate(body: Record<string, unknown>, fields: string[]) {
  const present = fields.filter((field) => body[field] !== undefined);
  return {
    ...Object.fromEntries(present.map((field) => [field, body[field]])),
    update_mask: present.map(camel).join(','),
  };
}

const AddOnChange = Type.Object({
  uuid: Type.String({ minLength: 1, maxLength: 64 }),
  name: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
  description: Type.Optional(Type.String({ maxLength: 10_000 })),
  resource_type: Type.Optional(Type.Unknown()),
  default_amount: Type.Optional(Type.Number({ minimum: 0 })),
  default_paid: Type.Optional(Type.Boolean()),
  addon_rates: Type.Optional(Type.Unknown()),
});

const AppliedAddonChange = Type.Object({
  amount: Type.Optional(Type.Number({ minimum: 0 })),
  paid: Type.Optional(Type.Boolean()),
});

const SubscriptionParams = Type.Object({ subUuid: Type.String({ minLength: 1, maxLength: 64 }) });
const AppliedParams = Type.Object({
  subUuid: Type.String({ minLength: 1, maxLength: 64 }),
  uuid: Type.String({ minLength: 1, maxLength: 64 }),
});

/**
 * The add-on calls relayed under another method or path: applying an add-on to a subscription
 * (`POST {prefix}/subscriptions/{s}/addons {uuid}` → `PUT /subscriptions/{s}/addons/{uuid}`) and
 * updating an applied one (`PUT …/addons/{uuid} {amount, paid}` → `POST` with a field mask); with
 * `manageAddons`, creating an add-on (`POST {prefix}/addons` → `PUT /addons`) and updating one
 * (`PUT {prefix}/addons {uuid, …}` → `POST /addons/{uuid}` with a field mask).
 */
export function addonRelayRoutes(
  app: FastifyInstance,
  deps: AreaDeps,
  options: { prefix: string; auth: AuthLevel; tag: Tag; manageAddons: boolean },
): void {
  const { prefix, auth, tag } = options;
  const route = (
    method: 'POST' | 'PUT',
    url: string,
    summary: string,
    schema: { params?: TSchema; body: TSchema; response: TSchema },
    handler: (request: FastifyRequest, reply: FastifyReply) => FastifyReply | Promise<FastifyReply>,
  ) =>
    app.route({
      method,
      url,
      ...documentedNotEnforced,
      config: { auth },
      schema: {
        tags: [tag],
        summary,
        security: routeSecurity(auth),
        ...(schema.params ? { params: schema.params } : {}),
        body: schema.body,
        response: { 200: schema.response },
      },
      handler,
    });

  const applied = Type.Object({ subscription_addon: SubscriptionAddon });
  route(
    'POST',
    `${prefix}/subscriptions/:subUuid/addons`,
    "Apply an add-on to a subscription, raising its quota of the add-on's resource type",
    {
      params: SubscriptionParams,
      body: Type.Object({ uuid: Type.String({ minLength: 1, maxLength: 64 }) }),
      response: applied,
    },
    (request, reply) => {
      const { subUuid } = request.params as { subUuid: string };
      const { uuid } = request.body as { uuid: string };
      return relay(
        deps,
        request,
        reply,
        'subscriptions',
        'PUT',
        `/subscriptions/${encodeURIComponent(subUuid)}/addons/${encodeURIComponent(uuid)}`,
        {},
      );
    },
  );
  route(
    'PUT',
    `${prefix}/subscriptions/:subUuid/addons/:uuid`,
    'Change the amount or paid flag of an add-on applied to a subscription',
    { params: AppliedParams, body: AppliedAddonChange, response: applied },
    (request, reply) => {
      const { subUuid, uuid } = request.params as { subUuid: string; uuid: string };
      return relay(
        deps,
        request,
        reply,
        'subscriptions',
        'POST',
        `/subscriptions/${encodeURIComponent(subUuid)}/addons/${encodeURIComponent(uuid)}`,
        maskedUpdate(request.body as Record<string, unknown>, ['amount', 'paid']),
      );
    },
  );
  if (!options.manageAddons) return;
  const one = Type.Object({ addon: AddOn });
  route(
    'POST',
    `${prefix}/addons`,
    'Create an add-on',
    { body: NewAddOn, response: one },
    (request, reply) =>
      relay(deps, request, reply, 'subscriptions', 'PUT', '/addons', request.body),
  );
  route(
    'PUT',
    `${prefix}/addons`,
    'Update the fields given of an add-on',
    { body: AddOnChange, response: one },
    (request, reply) => {
      const body = request.body as Record<string, unknown>;
      return relay(
        deps,
        request,
        reply,
        'subscriptions',
        'POST',
        `/addons/${encodeURIComponent(String(body.uuid))}`,
        maskedUpdate(body, [
          'name',
          'description',
          'resource_type',
          'default_amount',
          'default_paid',
          'addon_rates',
        ]),
      );
    },
  );
}

export async function qmsRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  addonRelayRoutes(app, deps, {
    prefix: '/admin/qms',
    auth: 'admin',
    tag: 'admin-qms',
    manageAddons: true,
  });
}
