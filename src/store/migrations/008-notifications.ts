import { sql, type Kysely } from 'kysely';

/**
 * The notification agent's tables (backends.md §4.4, §4.5): user notifications and system
 * messages with each user's acknowledgment state. Usernames are short (`alice`), times
 * milliseconds since the epoch, ids UUIDs in lower case.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('notifications')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    // Stored lower case with `_` for spaces; listed with spaces (`tool request`).
    .addColumn('type', 'varchar(32)', (col) => col.notNull())
    .addColumn('subject', 'text', (col) => col.notNull())
    .addColumn('seen', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('time_created', 'bigint', (col) => col.notNull())
    // The request as received (JSON): seen and deleted come from the columns, not from here.
    .addColumn('incoming_json', 'text', (col) => col.notNull())
    .execute();
  // Every listing and count reads one user's live rows newest first, with or without a type.
  await db.schema
    .createIndex('notifications_user_time')
    .on('notifications')
    .columns(['username', 'deleted', 'time_created'])
    .execute();
  await db.schema
    .createIndex('notifications_user_type_time')
    .on('notifications')
    .columns(['username', 'type', 'deleted', 'time_created'])
    .execute();

  await db.schema
    .createTable('system_notification_types')
    .addColumn('name', 'varchar(32)', (col) => col.primaryKey())
    .execute();
  await db
    .insertInto('system_notification_types' as never)
    .values([{ name: 'announcement' }, { name: 'maintenance' }, { name: 'warning' }] as never)
    .execute();

  await db.schema
    .createTable('system_notifications')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('type', 'varchar(32)', (col) =>
      col.notNull().references('system_notification_types.name'),
    )
    .addColumn('message', 'text', (col) => col.notNull())
    .addColumn('date_created', 'bigint', (col) => col.notNull())
    .addColumn('activation_date', 'bigint', (col) => col.notNull())
    .addColumn('deactivation_date', 'bigint', (col) => col.notNull())
    .addColumn('dismissible', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('logins_disabled', 'boolean', (col) => col.notNull().defaultTo(false))
    .addCheckConstraint('system_notifications_window', sql`activation_date < deactivation_date`)
    .execute();
  await db.schema
    .createIndex('system_notifications_window')
    .on('system_notifications')
    .columns(['deactivation_date', 'activation_date'])
    .execute();

  // No row means `unreceived`; state 1 received, 2 acknowledged (seen), 3 dismissed. Never lowered.
  await db.schema
    .createTable('system_notification_acknowledgments')
    .addColumn('username', 'varchar(512)', (col) => col.notNull())
    .addColumn('system_notification_id', 'varchar(36)', (col) =>
      col.notNull().references('system_notifications.id').onDelete('cascade'),
    )
    .addColumn('state', 'smallint', (col) => col.notNull())
    .addColumn('date_acknowledged', 'bigint')
    .addPrimaryKeyConstraint('system_notification_acknowledgments_pk', [
      'username',
      'system_notification_id',
    ])
    .addCheckConstraint('system_notification_acknowledgments_state', sql`state between 1 and 3`)
    .execute();
  await db.schema
    .createIndex('system_notification_acknowledgments_message')
    .on('system_notification_acknowledgments')
    .column('system_notification_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('system_notification_acknowledgments').execute();
  await db.schema.dropTable('system_notifications').execute();
  await db.schema.dropTable('system_notification_types').execute();
  await db.schema.dropTable('notifications').execute();
}
