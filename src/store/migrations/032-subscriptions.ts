import { sql, type Kysely } from 'kysely';

/**
 * Subscriptions and usage, the QMS (backends.md §8, routes.md §23, §25): resource types, plans with
 * their default quotas, users' subscriptions to a plan (effective dates, paid or not) with a quota
 * and a usage per resource type, add-ons (an amount of one resource type, with rates) and the
 * add-ons applied to a subscription. Usernames are short; times are milliseconds since the epoch;
 * quotas, usages and amounts are in the resource type's unit (`cpu.hours` in hours, `data.size` in
 * bytes). Seeded with the two resource types and four plans (Basic, the default, then Regular, Pro
 * and Commercial).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('qms_resource_types')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('unit', 'varchar(64)', (col) => col.notNull())
    .addColumn('consumable', 'boolean', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('qms_plans')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('qms_plan_quota_defaults')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('plan_id', 'varchar(36)', (col) =>
      col.notNull().references('qms_plans.id').onDelete('cascade'),
    )
    .addColumn('resource_type_id', 'varchar(36)', (col) =>
      col.notNull().references('qms_resource_types.id'),
    )
    .addColumn('quota_value', 'double precision', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('qms_subscriptions')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('plan_id', 'varchar(36)', (col) => col.notNull().references('qms_plans.id'))
    .addColumn('effective_start_date', 'bigint', (col) => col.notNull())
    .addColumn('effective_end_date', 'bigint', (col) => col.notNull())
    .addColumn('paid', 'boolean', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('qms_subscriptions_user')
    .on('qms_subscriptions')
    .columns(['username', 'effective_start_date'])
    .execute();
  for (const table of ['qms_quotas', 'qms_usages'] as const) {
    await db.schema
      .createTable(table)
      .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
      .addColumn('subscription_id', 'varchar(36)', (col) =>
        col.notNull().references('qms_subscriptions.id').onDelete('cascade'),
      )
      .addColumn('resource_type_id', 'varchar(36)', (col) =>
        col.notNull().references('qms_resource_types.id'),
      )
      .addColumn('value', 'double precision', (col) => col.notNull())
      .addColumn('created_at', 'bigint', (col) => col.notNull())
      .addColumn('last_modified_at', 'bigint', (col) => col.notNull())
      .addUniqueConstraint(`${table}_subscription_type`, ['subscription_id', 'resource_type_id'])
      .execute();
  }
  await db.schema
    .createTable('qms_addons')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(128)', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('resource_type_id', 'varchar(36)', (col) =>
      col.notNull().references('qms_resource_types.id'),
    )
    .addColumn('default_amount', 'double precision', (col) => col.notNull())
    .addColumn('default_paid', 'boolean', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('qms_addon_rates')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('addon_id', 'varchar(36)', (col) =>
      col.notNull().references('qms_addons.id').onDelete('cascade'),
    )
    .addColumn('rate', 'double precision', (col) => col.notNull())
    .addColumn('effective_date', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createTable('qms_subscription_addons')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('subscription_id', 'varchar(36)', (col) =>
      col.notNull().references('qms_subscriptions.id').onDelete('cascade'),
    )
    .addColumn('addon_id', 'varchar(36)', (col) => col.notNull().references('qms_addons.id'))
    .addColumn('amount', 'double precision', (col) => col.notNull())
    .addColumn('paid', 'boolean', (col) => col.notNull())
    .addColumn('created_at', 'bigint', (col) => col.notNull())
    .execute();

  const types = [
    { id: '3fa85f64-5717-4562-b3fc-2c963f66af01', name: 'cpu.hours', unit: 'cpu hours' },
    { id: '3fa85f64-5717-4562-b3fc-2c963f66af02', name: 'data.size', unit: 'bytes' },
  ];
  const GiB = 1024 ** 3;
  const plans = [
    ['Basic', 'Basic plan, every user starts here', 20, 5 * GiB],
    ['Regular', 'Regular plan', 100, 50 * GiB],
    ['Pro', 'Professional plan', 1000, 500 * GiB],
    ['Commercial', 'Commercial plan', 10_000, 5000 * GiB],
  ] as const;
  for (const type of types)
    await sql`insert into qms_resource_types (id, name, unit, consumable)
      values (${type.id}, ${type.name}, ${type.unit}, ${sql.lit(type.name === 'cpu.hours')})`.execute(
      db,
    );
  for (const [index, [name, description, cpuHours, bytes]] of plans.entries()) {
    const planId = `4fa85f64-5717-4562-b3fc-2c963f66af0${index + 1}`;
    await sql`insert into qms_plans (id, name, description) values (${planId}, ${name}, ${description})`.execute(
      db,
    );
    for (const [offset, value] of [cpuHours, bytes].entries())
      await sql`insert into qms_plan_quota_defaults (id, plan_id, resource_type_id, quota_value)
        values (${`5fa85f64-5717-4562-b3fc-2c963f66a${index + 1}0${offset + 1}`}, ${planId}, ${types[offset]!.id}, ${value})`.execute(
        db,
      );
  }
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of [
    'qms_subscription_addons',
    'qms_addon_rates',
    'qms_addons',
    'qms_usages',
    'qms_quotas',
    'qms_subscriptions',
    'qms_plan_quota_defaults',
    'qms_plans',
    'qms_resource_types',
  ])
    await db.schema.dropTable(table).execute();
}
