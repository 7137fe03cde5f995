// The subscriptions service's paths (backends.md §8): add-ons with their rates (`{addons}`,
// `{addon}`), and the add-ons applied to a subscription, each raising that subscription's quota
// of its resource type by its amount. Updates take camelCase field masks.
import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import { Type } from 'typebox';
import { gatewayError } from '../../common/errors.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import {
  addonView,
  addonViews,
  resourceType,
  subscriptionAddons,
  subscriptionView,
  type Db,
} from './model.ts';
import {
  AddOn,
  AddOnUpdate,
  NewAddOn,
  SubscriptionAddon,
  SubscriptionAddonUpdate,
} from '../../common/qms-shapes.ts';

export interface AddonRouteOptions {
  db: Db;
  now: () => number;
}

type ResourceTypeRef = string | { uuid?: string; id?: string; name?: string };
interface AddonFields {
  name?: string;
  description?: string;
  resource_type?: ResourceTypeRef;
  default_amount?: number;
  default_paid?: boolean;
  addon_rates?: { rate: number; effective_date?: string }[];
  update_mask?: string | string[];
}

const maskNames: Record<string, keyof AddonFields> = {
  name: 'name',
  description: 'description',
  defaultAmount: 'default_amount',
  defaultPaid: 'default_paid',
  resourceType: 'resource_type',
  addonRates: 'addon_rates',
  amount: 'amount' as keyof AddonFields,
  paid: 'paid' as keyof AddonFields,
};

/** The snake_case fields an update names: its mask's (camelCase), or else every field present. */
function maskedFields(body: Record<string, unknown>, allowed: string[]): string[] {
  const mask = body.update_mask as string | string[] | undefined;
  if (mask === undefined) return allowed.filter((field) => body[field] !== undefined);
  const names = (Array.isArray(mask) ? mask : mask.split(','))
    .map((name) => name.trim())
    .filter((name) => name !== '');
  return names.map((name) => {
    const field = maskNames[name] ?? name;
    if (!allowed.includes(field))
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `the update mask names "${name}", which cannot be changed`,
        {
          field: 'update_mask',
        },
      );
    if (body[field] === undefined)
      throw gatewayError(
        'ERR_BAD_OR_MISSING_FIELD',
        `the update mask names "${name}" but the body has no "${field}"`,
        {
          field,
        },
      );
    return field;
  });
}

const typeRefName = (ref: ResourceTypeRef) =>
  typeof ref === 'string' ? ref : (ref.uuid ?? ref.id ?? ref.name ?? '');

const Uuid = Type.Object({ uuid: Type.String({ minLength: 1, maxLength: 64 }) });
const SubscriptionParams = Type.Object({
  subscription: Type.String({ minLength: 1, maxLength: 64 }),
});
const SubscriptionAddonParams = Type.Object({
  subscription: Type.String({ minLength: 1, maxLength: 64 }),
  uuid: Type.String({ minLength: 1, maxLength: 64 }),
});

export const addonRoutes: FastifyPluginAsync<AddonRouteOptions> = async (app, { db, now }) => {
  const named = async <T>(work: () => Promise<T>, name?: string): Promise<T> => {
    try {
      return await work();
    } catch (error) {
      if (isUniqueViolation(error))
        throw gatewayError('ERR_EXISTS', `an add-on named "${name}" exists`, { name });
      throw error;
    }
  };
  const insertRates = async (addonId: string, rates: NonNullable<AddonFields['addon_rates']>) => {
    for (const rate of rates) {
      const at = rate.effective_date === undefined ? now() : Date.parse(rate.effective_date);
      if (Number.isNaN(at))
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', '"effective_date" must be a date', {
          field: 'addon_rates',
        });
      await db
        .insertInto('qms_addon_rates')
        .values({ id: randomUUID(), addon_id: addonId, rate: rate.rate, effective_date: at })
        .execute();
    }
  };

  app.get(
    '/addons',
    { schema: { response: { 200: Type.Object({ addons: Type.Array(AddOn) }) } } },
    async () => ({ addons: await addonViews(db) }),
  );

  app.put(
    '/addons',
    { schema: { body: NewAddOn, response: { 200: Type.Object({ addon: AddOn }) } } },
    async (request) => {
      const body = request.body as Required<Omit<AddonFields, 'update_mask' | 'addon_rates'>> &
        AddonFields;
      const type = await resourceType(db, typeRefName(body.resource_type));
      const id = randomUUID();
      await named(
        () =>
          db
            .insertInto('qms_addons')
            .values({
              id,
              name: body.name,
              description: body.description,
              resource_type_id: type.id,
              default_amount: body.default_amount,
              default_paid: body.default_paid,
            })
            .execute(),
        body.name,
      );
      await insertRates(id, body.addon_rates ?? []);
      return { addon: await addonView(db, id) };
    },
  );

  type UuidRoute = { Params: { uuid: string } };
  app.post<UuidRoute>(
    '/addons/:uuid',
    {
      schema: { params: Uuid, body: AddOnUpdate, response: { 200: Type.Object({ addon: AddOn }) } },
    },
    async (request) => {
      const id = request.params.uuid;
      await addonView(db, id);
      const body = request.body as AddonFields & Record<string, unknown>;
      const fields = maskedFields(body, [
        'name',
        'description',
        'default_amount',
        'default_paid',
        'resource_type',
        'addon_rates',
      ]);
      const changes: Record<string, unknown> = {};
      for (const field of fields) {
        if (field === 'addon_rates') continue;
        changes[field === 'resource_type' ? 'resource_type_id' : field] =
          field === 'resource_type'
            ? (await resourceType(db, typeRefName(body.resource_type!))).id
            : body[field];
      }
      if (Object.keys(changes).length > 0)
        await named(
          () => db.updateTable('qms_addons').set(changes).where('id', '=', id).execute(),
          body.name,
        );
      if (fields.includes('addon_rates')) {
        await db.deleteFrom('qms_addon_rates').where('addon_id', '=', id).execute();
        await insertRates(id, body.addon_rates!);
      }
      return { addon: await addonView(db, id) };
    },
  );

  app.delete<UuidRoute>(
    '/addons/:uuid',
    { schema: { params: Uuid, response: { 200: Type.Object({ addon: AddOn }) } } },
    async (request) => {
      const addon = await addonView(db, request.params.uuid);
      const applied = await db
        .selectFrom('qms_subscription_addons')
        .select('id')
        .where('addon_id', '=', addon.uuid)
        .executeTakeFirst();
      if (applied)
        throw gatewayError(
          'ERR_ILLEGAL_ARGUMENT',
          'the add-on is applied to subscriptions; remove it from them first',
          {
            uuid: addon.uuid,
          },
        );
      await db.deleteFrom('qms_addons').where('id', '=', addon.uuid).execute();
      return { addon };
    },
  );

  type SubscriptionRoute = { Params: { subscription: string } };
  app.get<SubscriptionRoute>(
    '/subscriptions/:subscription/addons',
    {
      schema: {
        params: SubscriptionParams,
        response: { 200: Type.Object({ subscription_addons: Type.Array(SubscriptionAddon) }) },
      },
    },
    async (request) => {
      const subscription = await subscriptionView(db, request.params.subscription);
      return { subscription_addons: subscription.addons };
    },
  );

  type OneRoute = { Params: { subscription: string; uuid: string } };
  const applied = async (subscription: string, id: string) => {
    const found = (await subscriptionAddons(db, [subscription])).find((each) => each.uuid === id);
    if (!found)
      throw gatewayError('ERR_NOT_FOUND', `no add-on "${id}" on subscription "${subscription}"`, {
        uuid: id,
      });
    return found;
  };
  const One = { 200: Type.Object({ subscription_addon: SubscriptionAddon }) };

  // Applies add-on `uuid` (an add-on's id) with its default amount and paid flag.
  app.put<OneRoute>(
    '/subscriptions/:subscription/addons/:uuid',
    { schema: { params: SubscriptionAddonParams, response: One } },
    async (request) => {
      const subscription = await subscriptionView(db, request.params.subscription);
      const addon = await addonView(db, request.params.uuid);
      const id = randomUUID();
      await db
        .insertInto('qms_subscription_addons')
        .values({
          id,
          subscription_id: subscription.id,
          addon_id: addon.uuid,
          amount: addon.default_amount,
          paid: addon.default_paid,
          created_at: now(),
        })
        .execute();
      return { subscription_addon: await applied(subscription.id, id) };
    },
  );

  app.get<OneRoute>(
    '/subscriptions/:subscription/addons/:uuid',
    { schema: { params: SubscriptionAddonParams, response: One } },
    async (request) => ({
      subscription_addon: await applied(request.params.subscription, request.params.uuid),
    }),
  );

  // Updates applied add-on `uuid` (a subscription add-on's id): its amount and paid flag.
  app.post<OneRoute>(
    '/subscriptions/:subscription/addons/:uuid',
    { schema: { params: SubscriptionAddonParams, body: SubscriptionAddonUpdate, response: One } },
    async (request) => {
      const { subscription, uuid } = request.params;
      await applied(subscription, uuid);
      const body = request.body as Record<string, unknown>;
      const fields = maskedFields(body, ['amount', 'paid']);
      if (fields.length > 0)
        await db
          .updateTable('qms_subscription_addons')
          .set(Object.fromEntries(fields.map((field) => [field, body[field]])))
          .where('id', '=', uuid)
          .execute();
      return { subscription_addon: await applied(subscription, uuid) };
    },
  );

  app.delete<OneRoute>(
    '/subscriptions/:subscription/addons/:uuid',
    { schema: { params: SubscriptionAddonParams, response: One } },
    async (request) => {
      const { subscription, uuid } = request.params;
      const found = await applied(subscription, uuid);
      await db.deleteFrom('qms_subscription_addons').where('id', '=', uuid).execute();
      return { subscription_addon: found };
    },
  );
};
