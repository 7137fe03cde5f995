// Integration data (migration 020): the name and e-mail listings show for an app's or a tool's
// integrator, one record per user of the platform plus records administrators make for people
// who are not. An app or tool made before its record existed gets its integrator's on first use.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Selectable } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { gatewayError } from '../../../common/errors.ts';
import { isUniqueViolation } from '../../../store/unique-violation.ts';
import { paged } from '../../../store/paging.ts';
import { qualifiedUsername } from '../../../common/users.ts';

type Db = Kysely<Database>;
type Row = Selectable<Database['integration_data']>;

/** A record as the apps API shows it. */
export interface IntegrationData {
  id: string;
  integrator_name: string;
  integrator_email: string;
  user?: string;
}

export const integrationDataView = (row: Row): IntegrationData => ({
  id: row.id,
  integrator_name: row.integrator_name,
  integrator_email: row.integrator_email,
  ...(row.username !== null ? { user: row.username } : {}),
});

export async function findIntegrationData(db: Db, id: string): Promise<Row> {
  const row = await db
    .selectFrom('integration_data')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row) throw gatewayError('ERR_NOT_FOUND', `no integration data ${id}`, { id });
  return row;
}

/** The record of a user of the platform, made with the name and e-mail given when they have none. */
export async function userIntegrationData(
  db: Db,
  username: string,
  name: string,
  email: string,
  now: number,
): Promise<Row> {
  const found = await db
    .selectFrom('integration_data')
    .selectAll()
    .where('username', '=', username)
    .executeTakeFirst();
  if (found) return found;
  // Two first uses at once: one insert wins, both read it back.
  await db
    .insertInto('integration_data')
    .values({
      id: randomUUID(),
      username,
      integrator_name: name || username,
      integrator_email: email,
      created_on: now,
    })
    .onConflict((conflict) => conflict.column('username').doNothing())
    .execute();
  return db
    .selectFrom('integration_data')
    .selectAll()
    .where('username', '=', username)
    .executeTakeFirstOrThrow();
}

/** An app's integration data: the record it points at, or its integrator's (then pointed at). */
export async function appIntegrationData(
  db: Db,
  app: Selectable<Database['apps']>,
  now: number,
): Promise<Row> {
  if (app.integration_data_id) return findIntegrationData(db, app.integration_data_id);
  const row = await userIntegrationData(
    db,
    app.integrator,
    app.integrator_name,
    app.integrator_email,
    now,
  );
  await db
    .updateTable('apps')
    .set({ integration_data_id: row.id })
    .where('id', '=', app.id)
    .execute();
  return row;
}

/** A tool's integration data, likewise; a user's record takes their name from their account. */
export async function toolIntegrationData(
  db: Db,
  tool: Selectable<Database['tools']>,
  uidDomain: string,
  now: number,
): Promise<Row> {
  if (tool.integration_data_id) return findIntegrationData(db, tool.integration_data_id);
  const account = await db
    .selectFrom('users')
    .select(['first_name', 'last_name', 'email'])
    .where('username', '=', qualifiedUsername(tool.integrator, uidDomain))
    .executeTakeFirst();
  const name = `${account?.first_name ?? ''} ${account?.last_name ?? ''}`.trim();
  const row = await userIntegrationData(db, tool.integrator, name, account?.email ?? '', now);
  await db
    .updateTable('tools')
    .set({ integration_data_id: row.id })
    .where('id', '=', tool.id)
    .execute();
  return row;
}

/** Points an app at a record; its listings' integrator name and e-mail follow the record. */
export async function assignToApp(db: Db, appId: string, data: Row): Promise<void> {
  await db
    .updateTable('apps')
    .set({
      integration_data_id: data.id,
      integrator_name: data.integrator_name,
      integrator_email: data.integrator_email,
    })
    .where('id', '=', appId)
    .execute();
}

export async function assignToTool(db: Db, toolId: string, data: Row): Promise<void> {
  await db
    .updateTable('tools')
    .set({ integration_data_id: data.id })
    .where('id', '=', toolId)
    .execute();
}

export const sortFields = {
  name: 'integrator_name',
  email: 'integrator_email',
  user: 'username',
} as const;

export async function listIntegrationData(
  db: Db,
  query: {
    search?: string;
    limit: number;
    offset: number;
    sortField: keyof typeof sortFields;
    sortDir: 'asc' | 'desc';
  },
): Promise<{ integration_data: IntegrationData[]; total: number }> {
  let selection = db.selectFrom('integration_data');
  if (query.search) {
    const pattern = `%${query.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    selection = selection.where((eb) =>
      eb.or(
        (['integrator_name', 'integrator_email', 'username'] as const).map(
          (column) =>
            sql<boolean>`lower(coalesce(${sql.ref(column)}, '')) like ${pattern} escape '\\'`,
        ),
      ),
    );
  }
  const [rows, total] = await Promise.all([
    paged(
      selection
        .selectAll()
        .orderBy(sortFields[query.sortField], query.sortDir)
        .orderBy('id', query.sortDir),
      query.limit,
      query.offset,
    ).execute(),
    selection.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirst(),
  ]);
  return { integration_data: rows.map(integrationDataView), total: Number(total?.count ?? 0) };
}

/** A new record; a user who already has one is 400 ERR_EXISTS. */
export async function createIntegrationData(
  db: Db,
  fields: { integrator_name: string; integrator_email: string; user?: string },
  now: number,
): Promise<Row> {
  const row: Row = {
    id: randomUUID(),
    username: fields.user ?? null,
    integrator_name: fields.integrator_name,
    integrator_email: fields.integrator_email,
    created_on: now,
  };
  try {
    await db.insertInto('integration_data').values(row).execute();
  } catch (error) {
    if (isUniqueViolation(error))
      throw gatewayError('ERR_EXISTS', `user ${fields.user} already has integration data`, {
        user: fields.user,
      });
    throw error;
  }
  return row;
}

/** Changes a record's name and e-mail, and the apps that show them. */
export async function updateIntegrationData(
  db: Db,
  id: string,
  fields: { integrator_name: string; integrator_email: string },
): Promise<Row> {
  const row = await findIntegrationData(db, id);
  await db.transaction().execute(async (trx) => {
    await trx.updateTable('integration_data').set(fields).where('id', '=', row.id).execute();
    await trx.updateTable('apps').set(fields).where('integration_data_id', '=', row.id).execute();
  });
  return { ...row, ...fields };
}

/** Deletes a record no app or tool points at; one in use is 400 ERR_ILLEGAL_ARGUMENT. */
export async function deleteIntegrationData(db: Db, id: string): Promise<void> {
  const row = await findIntegrationData(db, id);
  const [apps, tools] = await Promise.all(
    (['apps', 'tools'] as const).map(async (table) =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll<number>().as('count'))
            .where('integration_data_id', '=', row.id)
            .executeTakeFirst()
        )?.count ?? 0,
      ),
    ),
  );
  if (apps! > 0 || tools! > 0)
    throw gatewayError(
      'ERR_ILLEGAL_ARGUMENT',
      `integration data ${row.id} is used by ${apps} apps and ${tools} tools`,
      { id: row.id, apps, tools },
    );
  await db.deleteFrom('integration_data').where('id', '=', row.id).execute();
}
