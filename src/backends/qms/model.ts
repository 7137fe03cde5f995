// The QMS's records and the views answered of them: resource types, plans, a user's current
// subscription (made on the default plan the first time the user is asked about), its quotas
// (the plan's, or an administrator's, raised by the add-ons applied to it) and usages, add-ons.
import { randomUUID } from 'node:crypto';
import { PostgresAdapter, sql, type Kysely, type Selectable } from 'kysely';
import { gatewayError } from '../../common/errors.ts';
import type { Database } from '../../store/schema.ts';

export type Db = Kysely<Database>;

/** The plan every user is given on first sight. */
export const defaultPlanName = 'Basic';
/** How long a subscription runs unless asked otherwise: one year. */
export const yearMs = 365 * 86_400_000;

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();
const bool = (value: boolean | number) => value === true || value === 1;

export interface ResourceTypeView {
  id: string;
  uuid: string;
  name: string;
  unit: string;
  consumable: boolean;
}

type ResourceTypeRow = Selectable<Database['qms_resource_types']>;

export const resourceTypeView = (row: ResourceTypeRow): ResourceTypeView => ({
  id: row.id,
  uuid: row.id,
  name: row.name,
  unit: row.unit,
  consumable: bool(row.consumable),
});

export async function resourceTypes(db: Db): Promise<ResourceTypeView[]> {
  const rows = await db.selectFrom('qms_resource_types').selectAll().orderBy('name').execute();
  return rows.map(resourceTypeView);
}

/** A resource type by name (`cpu.hours`), or by id; ERR_NOT_FOUND otherwise. */
export async function resourceType(db: Db, nameOrId: string): Promise<ResourceTypeView> {
  const row = await db
    .selectFrom('qms_resource_types')
    .selectAll()
    .where((eb) => eb.or([eb('name', '=', nameOrId), eb('id', '=', nameOrId)]))
    .executeTakeFirst();
  if (!row)
    throw gatewayError('ERR_NOT_FOUND', `no resource type "${nameOrId}"`, {
      resource_type: nameOrId,
    });
  return resourceTypeView(row);
}

export async function plans(db: Db, planId?: string) {
  let query = db.selectFrom('qms_plans').selectAll().orderBy('name');
  if (planId !== undefined)
    query = query.where((eb) =>
      eb.or([eb('id', '=', planId), eb(eb.fn('lower', ['name']), '=', planId.toLowerCase())]),
    );
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const types = new Map((await resourceTypes(db)).map((type) => [type.id, type]));
  const defaults = await db
    .selectFrom('qms_plan_quota_defaults')
    .selectAll()
    .where(
      'plan_id',
      'in',
      rows.map((row) => row.id),
    )
    .execute();
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    plan_quota_defaults: defaults
      .filter((each) => each.plan_id === row.id)
      .map((each) => ({
        id: each.id,
        quota_value: Number(each.quota_value),
        resource_type: types.get(each.resource_type_id)!,
      }))
      .sort((a, b) => a.resource_type.name.localeCompare(b.resource_type.name)),
  }));
}

export type PlanView = Awaited<ReturnType<typeof plans>>[number];

/** A plan by id or by name in any letter case (the CLI's `basic`); ERR_NOT_FOUND otherwise. */
export async function plan(db: Db, idOrName: string): Promise<PlanView> {
  const [found] = await plans(db, idOrName);
  if (!found) throw gatewayError('ERR_NOT_FOUND', `no plan "${idOrName}"`, { plan: idOrName });
  return found;
}

/** A new subscription of `username` to `planView`, with the plan's quotas. */
export async function subscribe(
  db: Db,
  username: string,
  planView: PlanView,
  options: { paid: boolean; start: number; end: number; now: number },
): Promise<string> {
  const id = randomUUID();
  await db
    .insertInto('qms_subscriptions')
    .values({
      id,
      username,
      plan_id: planView.id,
      effective_start_date: options.start,
      effective_end_date: options.end,
      paid: options.paid,
      created_at: options.now,
    })
    .execute();
  for (const quota of planView.plan_quota_defaults)
    await db
      .insertInto('qms_quotas')
      .values({
        id: randomUUID(),
        subscription_id: id,
        resource_type_id: quota.resource_type.id,
        value: quota.quota_value,
        created_at: options.now,
        last_modified_at: options.now,
      })
      .execute();
  return id;
}

/**
 * Serialises changes to one user's subscriptions until the transaction ends: on PostgreSQL an
 * advisory lock on the username (two first sights at once must not make two subscriptions); SQLite
 * runs one writing transaction at a time anyway.
 */
async function lockUser(trx: Db, username: string): Promise<void> {
  if (trx.getExecutor().adapter instanceof PostgresAdapter)
    await sql`select pg_advisory_xact_lock(hashtext(${`qms:${username}`}))`.execute(trx);
}

/**
 * The id of the subscription of `username` in effect at `now`, if any: the latest started of those
 * not ended. Subscriptions start when they are made, so one made by a concurrent request a moment
 * after `now` counts too.
 */
async function subscriptionInEffect(db: Db, username: string, now: number) {
  const row = await db
    .selectFrom('qms_subscriptions')
    .select('id')
    .where('username', '=', username)
    .where('effective_end_date', '>', now)
    .orderBy('effective_start_date', 'desc')
    .orderBy('created_at', 'desc')
    .orderBy('id')
    .executeTakeFirst();
  return row?.id;
}

/** The subscription of `username` in effect now; one on the default plan when there is none (first sight, or lapsed). */
export async function currentSubscriptionId(db: Db, username: string, now: number) {
  const found = await subscriptionInEffect(db, username, now);
  if (found) return found;
  return db.transaction().execute(async (trx) => {
    await lockUser(trx, username);
    const again = await subscriptionInEffect(trx, username, now);
    if (again) return again;
    return subscribe(trx, username, await plan(trx, defaultPlanName), {
      paid: false,
      start: now,
      end: now + yearMs,
      now,
    });
  });
}

/** Moves `username` to a new subscription on `planView` from now; the current one ends now. Usages of non-consumable types (data.size) carry over. */
export async function changePlan(
  db: Db,
  username: string,
  planView: PlanView,
  options: { paid: boolean; now: number; years?: number },
): Promise<string> {
  const { now } = options;
  return db.transaction().execute(async (trx) => {
    await lockUser(trx, username);
    const previous = await subscriptionInEffect(trx, username, now);
    if (previous)
      await trx
        .updateTable('qms_subscriptions')
        .set({ effective_end_date: now })
        .where('id', '=', previous)
        .execute();
    const id = await subscribe(trx, username, planView, {
      paid: options.paid,
      start: now,
      end: now + (options.years ?? 1) * yearMs,
      now,
    });
    if (previous) {
      const kept = await trx
        .selectFrom('qms_usages')
        .innerJoin('qms_resource_types', 'qms_resource_types.id', 'qms_usages.resource_type_id')
        .select([
          'qms_usages.resource_type_id',
          'qms_usages.value',
          'qms_resource_types.consumable',
        ])
        .where('subscription_id', '=', previous)
        .execute();
      for (const usage of kept.filter((each) => !bool(each.consumable)))
        await trx
          .insertInto('qms_usages')
          .values({
            id: randomUUID(),
            subscription_id: id,
            resource_type_id: usage.resource_type_id,
            value: Number(usage.value),
            created_at: now,
            last_modified_at: now,
          })
          .execute();
    }
    return id;
  });
}

export async function addonViews(db: Db, ids?: string[]) {
  if (ids && ids.length === 0) return [];
  let query = db.selectFrom('qms_addons').selectAll().orderBy('name');
  if (ids) query = query.where('id', 'in', ids);
  const rows = await query.execute();
  if (rows.length === 0) return [];
  const types = new Map((await resourceTypes(db)).map((type) => [type.id, type]));
  const rates = await db
    .selectFrom('qms_addon_rates')
    .selectAll()
    .where(
      'addon_id',
      'in',
      rows.map((row) => row.id),
    )
    .orderBy('effective_date')
    .execute();
  return rows.map((row) => ({
    uuid: row.id,
    name: row.name,
    description: row.description,
    default_amount: Number(row.default_amount),
    default_paid: bool(row.default_paid),
    resource_type: types.get(row.resource_type_id)!,
    addon_rates: rates
      .filter((rate) => rate.addon_id === row.id)
      .map((rate) => ({
        uuid: rate.id,
        rate: Number(rate.rate),
        effective_date: iso(rate.effective_date),
      })),
  }));
}

export type AddonView = Awaited<ReturnType<typeof addonViews>>[number];

export async function addonView(db: Db, id: string): Promise<AddonView> {
  const [found] = await addonViews(db, [id]);
  if (!found) throw gatewayError('ERR_NOT_FOUND', `no add-on "${id}"`, { uuid: id });
  return found;
}

/** The add-ons applied to subscriptions (all of them, or those of `subscriptionIds`), by subscription. */
export async function subscriptionAddons(db: Db, subscriptionIds: string[]) {
  if (subscriptionIds.length === 0) return [];
  const rows = await db
    .selectFrom('qms_subscription_addons')
    .selectAll()
    .where('subscription_id', 'in', subscriptionIds)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  const addons = new Map(
    (await addonViews(db, [...new Set(rows.map((row) => row.addon_id))])).map((addon) => [
      addon.uuid,
      addon,
    ]),
  );
  return rows.map((row) => ({
    uuid: row.id,
    subscription_id: row.subscription_id,
    addon: addons.get(row.addon_id)!,
    amount: Number(row.amount),
    paid: bool(row.paid),
    created_at: iso(row.created_at),
  }));
}

export type SubscriptionAddonView = Awaited<ReturnType<typeof subscriptionAddons>>[number];

/** Subscriptions as answered: plan, quotas (raised by their add-ons), usages and add-ons. */
export async function subscriptionViews(db: Db, ids: string[]) {
  if (ids.length === 0) return [];
  const rows = await db
    .selectFrom('qms_subscriptions')
    .selectAll()
    .where('id', 'in', ids)
    .execute();
  const planViews = new Map((await plans(db)).map((each) => [each.id, each]));
  const types = new Map((await resourceTypes(db)).map((type) => [type.id, type]));
  const [quotas, usages, addons] = await Promise.all([
    db.selectFrom('qms_quotas').selectAll().where('subscription_id', 'in', ids).execute(),
    db.selectFrom('qms_usages').selectAll().where('subscription_id', 'in', ids).execute(),
    subscriptionAddons(db, ids),
  ]);
  const byId = new Map(
    rows.map((row) => {
      const mine = addons.filter((each) => each.subscription_id === row.id);
      const raisedBy = (typeId: string) =>
        mine
          .filter((each) => each.addon.resource_type.id === typeId)
          .reduce((sum, each) => sum + each.amount, 0);
      const planView = planViews.get(row.plan_id)!;
      return [
        row.id,
        {
          id: row.id,
          effective_start_date: iso(row.effective_start_date),
          effective_end_date: iso(row.effective_end_date),
          user: { username: row.username },
          plan: planView,
          paid: bool(row.paid),
          quotas: quotas
            .filter((each) => each.subscription_id === row.id)
            .map((each) => ({
              id: each.id,
              quota: Number(each.value) + raisedBy(each.resource_type_id),
              resource_type: types.get(each.resource_type_id)!,
              last_modified_at: iso(each.last_modified_at),
            }))
            .sort((a, b) => a.resource_type.name.localeCompare(b.resource_type.name)),
          usages: usages
            .filter((each) => each.subscription_id === row.id)
            .map((each) => ({
              id: each.id,
              usage: Number(each.value),
              resource_type: types.get(each.resource_type_id)!,
              last_modified_at: iso(each.last_modified_at),
            }))
            .sort((a, b) => a.resource_type.name.localeCompare(b.resource_type.name)),
          addons: mine,
        },
      ] as const;
    }),
  );
  return ids.map((id) => byId.get(id)!).filter((view) => view !== undefined);
}

export type SubscriptionView = Awaited<ReturnType<typeof subscriptionViews>>[number];

export async function subscriptionView(db: Db, id: string): Promise<SubscriptionView> {
  const [found] = await subscriptionViews(db, [id]);
  if (!found) throw gatewayError('ERR_NOT_FOUND', `no subscription "${id}"`, { id });
  return found;
}

/** The current subscription of `username`, as answered. */
export async function currentSubscription(db: Db, username: string, now: number) {
  return subscriptionView(db, await currentSubscriptionId(db, username, now));
}

/** Records a usage of the current subscription: `ADD` to it, or `SET` it. */
export async function recordUsage(
  db: Db,
  usage: { username: string; resourceName: string; value: number; updateType: 'ADD' | 'SET' },
  now: number,
) {
  const type = await resourceType(db, usage.resourceName);
  const subscriptionId = await currentSubscriptionId(db, usage.username, now);
  await db
    .insertInto('qms_usages')
    .values({
      id: randomUUID(),
      subscription_id: subscriptionId,
      resource_type_id: type.id,
      value: usage.value,
      created_at: now,
      last_modified_at: now,
    })
    .onConflict((conflict) =>
      conflict.columns(['subscription_id', 'resource_type_id']).doUpdateSet((eb) => ({
        value:
          usage.updateType === 'ADD'
            ? eb(eb.ref('qms_usages.value'), '+', eb.ref('excluded.value'))
            : eb.ref('excluded.value'),
        last_modified_at: now,
      })),
    )
    .execute();
  const view = await subscriptionView(db, subscriptionId);
  return view.usages.find((each) => each.resource_type.id === type.id)!;
}

/** The quota and usage of one resource type in the current subscription of `username`. */
export async function standing(db: Db, username: string, resourceName: string, now: number) {
  const subscription = await currentSubscription(db, username, now);
  const quota = subscription.quotas.find((each) => each.resource_type.name === resourceName);
  const usage = subscription.usages.find((each) => each.resource_type.name === resourceName);
  return { subscription, quota: quota?.quota, usage: usage?.usage ?? 0 };
}
