// The QMS's request and response shapes (routes.md §23, §25; spec AddOn, AddonRate, AddUsage), shared
// by the embedded QMS services and the gateway's routes that document or reshape their calls.
import { Type, type TSchema } from 'typebox';

const Uuid = Type.String({ description: 'UUID' });
const Instant = Type.String({ description: 'ISO 8601 time' });

export const ResourceType = Type.Object({
  id: Uuid,
  uuid: Uuid,
  name: Type.String({ description: '`cpu.hours` or `data.size`' }),
  unit: Type.String({ description: '`cpu hours` or `bytes`' }),
  consumable: Type.Boolean({
    description: 'Used up over a subscription (CPU hours), not held (data)',
  }),
});

export const Plan = Type.Object({
  id: Uuid,
  name: Type.String(),
  description: Type.String(),
  plan_quota_defaults: Type.Array(
    Type.Object({ id: Uuid, quota_value: Type.Number(), resource_type: ResourceType }),
  ),
});

const Amount = (name: 'quota' | 'usage') =>
  Type.Object({
    id: Uuid,
    [name]: Type.Number({ description: "In the resource type's unit" }),
    resource_type: ResourceType,
    last_modified_at: Instant,
  });

export const Quota = Amount('quota');
export const Usage = Amount('usage');

export const AddonRate = Type.Object({
  uuid: Uuid,
  rate: Type.Number(),
  effective_date: Instant,
});

export const AddOn = Type.Object({
  uuid: Uuid,
  name: Type.String(),
  description: Type.String(),
  default_amount: Type.Number(),
  default_paid: Type.Boolean(),
  resource_type: ResourceType,
  addon_rates: Type.Array(AddonRate),
});

export const SubscriptionAddon = Type.Object({
  uuid: Uuid,
  subscription_id: Uuid,
  addon: AddOn,
  amount: Type.Number({ description: 'How much it raises the quota of its resource type' }),
  paid: Type.Boolean(),
  created_at: Instant,
});

export const Subscription = Type.Object({
  id: Uuid,
  effective_start_date: Instant,
  effective_end_date: Instant,
  user: Type.Object({ username: Type.String({ description: 'Short username' }) }),
  plan: Plan,
  paid: Type.Boolean(),
  quotas: Type.Array(Quota, { description: "The plan's quotas raised by the add-ons applied" }),
  usages: Type.Array(Usage),
  addons: Type.Array(SubscriptionAddon),
});

/** `{result: …}`, the QMS's wrapper. */
export const Result = <T extends TSchema>(schema: T) => Type.Object({ result: schema });

export const SubscriptionList = Type.Object({
  subscriptions: Type.Array(Subscription),
  total: Type.Integer(),
});

export const AddUsage = Type.Object({
  username: Type.String({ minLength: 1, maxLength: 512 }),
  resource_name: Type.String({ minLength: 1, maxLength: 64 }),
  usage_value: Type.Number({ minimum: 0 }),
  update_type: Type.String({ enum: ['ADD', 'SET'] }),
});

export const QuotaBody = Type.Object({
  quota: Type.Number({ minimum: 0, description: "In the resource type's unit" }),
});

export const NewSubscriptions = Type.Object({
  subscriptions: Type.Array(
    Type.Object({
      username: Type.String({ minLength: 1, maxLength: 512 }),
      plan_name: Type.String({ minLength: 1, maxLength: 64 }),
      paid: Type.Optional(Type.Boolean()),
      periods: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, description: 'Years' })),
    }),
    { minItems: 1, maxItems: 1000 },
  ),
});

const ResourceTypeRef = Type.Union([
  Type.String({ minLength: 1, description: 'The resource type name or id' }),
  Type.Object({
    uuid: Type.Optional(Type.String()),
    id: Type.Optional(Type.String()),
    name: Type.Optional(Type.String()),
    unit: Type.Optional(Type.String()),
  }),
]);

const addonFields = {
  name: Type.String({ minLength: 1, maxLength: 128 }),
  description: Type.String({ maxLength: 10_000 }),
  resource_type: ResourceTypeRef,
  default_amount: Type.Number({ minimum: 0 }),
  default_paid: Type.Boolean(),
  addon_rates: Type.Array(
    Type.Object({
      rate: Type.Number({ minimum: 0 }),
      effective_date: Type.Optional(Type.String()),
    }),
    { maxItems: 100 },
  ),
};

export const NewAddOn = Type.Object({
  ...addonFields,
  addon_rates: Type.Optional(addonFields.addon_rates),
});

/** An update: the fields the mask names (camelCase: `name`, `description`, `defaultAmount`, `defaultPaid`, `resourceType`, `addonRates`), else those present. */
export const AddOnUpdate = Type.Object({
  uuid: Type.Optional(Type.String()),
  name: Type.Optional(addonFields.name),
  description: Type.Optional(addonFields.description),
  resource_type: Type.Optional(ResourceTypeRef),
  default_amount: Type.Optional(addonFields.default_amount),
  default_paid: Type.Optional(addonFields.default_paid),
  addon_rates: Type.Optional(addonFields.addon_rates),
  update_mask: Type.Optional(
    Type.Union([Type.String(), Type.Array(Type.String())], {
      description: 'camelCase field names, comma-separated or a list',
    }),
  ),
});

export const SubscriptionAddonUpdate = Type.Object({
  amount: Type.Optional(Type.Number({ minimum: 0 })),
  paid: Type.Optional(Type.Boolean()),
  update_mask: Type.Optional(Type.Union([Type.String(), Type.Array(Type.String())])),
});

export const UsageTotal = Type.Object({
  user: Type.String(),
  total: Type.Number(),
  unit: Type.String(),
  time: Instant,
});

export const UsageSummary = Type.Object({
  cpu_usage: UsageTotal,
  data_usage: UsageTotal,
  subscription: Subscription,
  errors: Type.Array(Type.Object({ field: Type.String(), message: Type.String() })),
});
