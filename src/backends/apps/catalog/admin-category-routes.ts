// Public app categories for administrators (routes.md §10, §17 "categorise apps"): the tree users
// see under their own categories (category-routes.ts reads the same rows). A category is a row of
// app_categories with no owner; apps are placed in it through app_category_apps.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../../store/schema.ts';
import { bodyObject, isUuid, userQuery, Uuid } from '../../metadata/index.ts';
import { requiredParam, requireUserParam } from '../../../common/query-params.ts';
import { gatewayError } from '../../../common/errors.ts';

type Db = Kysely<Database> | Transaction<Database>;
type CategoryRow = Pick<
  Selectable<Database['app_categories']>,
  'id' | 'name' | 'description' | 'parent_id'
>;

const systemId = 'de';
const sortFields = ['name', 'total'] as const;

const badField = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
const noCategory = (id: string) =>
  gatewayError('ERR_NOT_FOUND', `no public app category ${id}`, { category_id: id });

function checkSystem(id: string): void {
  if (id.toLowerCase() !== systemId)
    throw gatewayError('ERR_NOT_FOUND', `no app system ${id}`, { system_id: id });
}

/** The public categories, every one. */
const publicCategories = (db: Db) =>
  db
    .selectFrom('app_categories')
    .select(['id', 'name', 'description', 'parent_id'])
    .where('owner', 'is', null);

/** How many public, not deleted apps each category holds directly (optionally of one app type). */
async function appCounts(db: Db, appType?: string): Promise<Map<string, number>> {
  let query = db
    .selectFrom('app_category_apps as c')
    .innerJoin('apps', 'apps.id', 'c.app_id')
    .select((eb) => ['c.category_id', eb.fn.countAll<number>().as('count')])
    .where('apps.is_public', '=', true)
    .where('apps.deleted', '=', false);
  if (appType !== undefined) query = query.where('apps.system_id', '=', appType.toLowerCase());
  const rows = await query.groupBy('c.category_id').execute();
  return new Map(rows.map((row) => [row.category_id, Number(row.count)]));
}

const entryOf = (row: CategoryRow, counts: Map<string, number>) => ({
  system_id: systemId,
  id: row.id,
  name: row.name,
  description: row.description,
  is_public: true,
  total: counts.get(row.id) ?? 0,
});

/** `name`, optional `description`, optional `parent_id` (a UUID, or null for the top level). */
function categoryFields(
  body: unknown,
  creating: boolean,
): { name?: string; description?: string; parentId?: string | null } {
  const object = bodyObject(body);
  const { name, description, parent_id: parentId } = object;
  if (
    (creating || name !== undefined) &&
    (typeof name !== 'string' || name.trim() === '' || name.length > 255)
  ) {
    throw badField(
      'name',
      'body field "name" must be a non-blank string of at most 255 characters',
    );
  }
  if (description !== undefined && typeof description !== 'string')
    throw badField('description', 'body field "description" must be a string');
  if (parentId !== undefined && parentId !== null && !isUuid(parentId))
    throw badField('parent_id', 'body field "parent_id" must be a category id (UUID) or null');
  return {
    ...(typeof name === 'string' ? { name: name.trim() } : {}),
    ...(typeof description === 'string' ? { description } : {}),
    ...(parentId !== undefined
      ? { parentId: parentId === null ? null : (parentId as string).toLowerCase() }
      : {}),
  };
}

async function requireCategory(db: Db, id: string): Promise<CategoryRow> {
  const row = await publicCategories(db).where('id', '=', id.toLowerCase()).executeTakeFirst();
  if (!row) throw noCategory(id);
  return row;
}

/** Siblings may not share a name (any letter case): users could not tell them apart. */
async function checkNameFree(
  db: Db,
  name: string,
  parentId: string | null,
  except?: string,
): Promise<void> {
  let query = publicCategories(db).where(sql<boolean>`lower(name) = ${name.toLowerCase()}`);
  query =
    parentId === null
      ? query.where('parent_id', 'is', null)
      : query.where('parent_id', '=', parentId);
  if (except !== undefined) query = query.where('id', '!=', except);
  const clash = await query.executeTakeFirst();
  if (clash)
    throw gatewayError(
      'ERR_EXISTS',
      `a category named ${JSON.stringify(clash.name)} is already there`,
      { category_id: clash.id },
    );
}

/** The parent a category is to go under: a public category, never the category itself or one below it. */
async function checkParent(db: Db, parentId: string, moving?: string): Promise<void> {
  const rows = await publicCategories(db).execute();
  const parents = new Map(rows.map((row) => [row.id, row.parent_id]));
  if (!parents.has(parentId)) throw badField('parent_id', `no public app category ${parentId}`);
  if (moving === undefined) return;
  // Walk up from the new parent: meeting the moved category means a cycle.
  const seen = new Set<string>();
  for (let at: string | null | undefined = parentId; at && !seen.has(at); at = parents.get(at)) {
    if (at === moving)
      throw gatewayError(
        'ERR_ILLEGAL_ARGUMENT',
        'a category cannot move under itself or a category below it',
        { category_id: moving, parent_id: parentId },
      );
    seen.add(at);
  }
}

const treeQuery = Type.Object(
  {
    user: Type.String({ minLength: 1 }),
    limit: Type.Optional(Type.Integer({ minimum: 0 })),
    offset: Type.Optional(Type.Integer({ minimum: 0 })),
    'sort-field': Type.Optional(Type.String()),
    'sort-dir': Type.Optional(Type.String()),
    'app-type': Type.Optional(Type.String()),
  },
  { additionalProperties: true },
);
const systemParams = Type.Object({ systemId: Type.String({ minLength: 1 }) });
const categoryParams = Type.Object({ systemId: Type.String({ minLength: 1 }), categoryId: Uuid });
type CategoryRequest = { Params: { systemId: string; categoryId: string } };

export const adminCategoryRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  now: () => number;
}> = async (app, { db, now }) => {
  /** The tree: siblings ordered by `sort-field`, the top level paged. */
  app.get('/admin/apps/categories', { schema: { querystring: treeQuery } }, async (request) => {
    const query = request.query as {
      limit?: number;
      offset?: number;
      'sort-field'?: string;
      'sort-dir'?: string;
      'app-type'?: string;
    };
    const sortField = (query['sort-field'] ?? 'name').toLowerCase();
    const sortDir = (query['sort-dir'] ?? 'asc').toLowerCase();
    if (!(sortFields as readonly string[]).includes(sortField)) {
      throw gatewayError(
        'ERR_BAD_QUERY_PARAMETER',
        `sort-field must be one of ${sortFields.join(', ')}`,
        { field: 'sort-field' },
      );
    }
    if (sortDir !== 'asc' && sortDir !== 'desc')
      throw gatewayError('ERR_BAD_QUERY_PARAMETER', 'sort-dir must be ASC or DESC', {
        field: 'sort-dir',
      });
    const appType =
      query['app-type'] === undefined ||
      query['app-type'] === '' ||
      query['app-type'].toLowerCase() === 'all'
        ? undefined
        : query['app-type'];
    const [rows, counts] = await Promise.all([
      publicCategories(db).execute(),
      appCounts(db, appType),
    ]);
    type Entry = ReturnType<typeof entryOf> & { categories: Entry[] };
    const entries = new Map<string, Entry>(
      rows.map((row) => [row.id, { ...entryOf(row, counts), categories: [] }]),
    );
    const roots: Entry[] = [];
    for (const row of rows)
      (row.parent_id && entries.has(row.parent_id)
        ? entries.get(row.parent_id)!.categories
        : roots
      ).push(entries.get(row.id)!);
    const direction = sortDir === 'asc' ? 1 : -1;
    const compare = (a: Entry, b: Entry) =>
      direction *
        (sortField === 'total'
          ? a.total - b.total
          : a.name.localeCompare(b.name, 'en', { sensitivity: 'base' })) ||
      a.id.localeCompare(b.id);
    const sortTree = (list: Entry[]) => {
      list.sort(compare);
      for (const entry of list) sortTree(entry.categories);
    };
    sortTree(roots);
    const offset = query.offset ?? 0;
    const page = query.limit ? roots.slice(offset, offset + query.limit) : roots.slice(offset);
    return { categories: page };
  });

  app.get(
    '/admin/apps/categories/search',
    { schema: { querystring: userQuery } },
    async (request) => {
      const name = requiredParam(request.query, 'name').toLowerCase();
      const pattern = `%${name.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      const [rows, counts] = await Promise.all([
        publicCategories(db)
          .where(sql<boolean>`lower(name) like ${pattern} escape '\\'`)
          .orderBy(sql`lower(name)`)
          .orderBy('id')
          .execute(),
        appCounts(db),
      ]);
      return {
        categories: rows.map((row) => ({ ...entryOf(row, counts), parent_id: row.parent_id })),
      };
    },
  );

  app.post<{ Params: { systemId: string } }>(
    '/admin/apps/categories/:systemId',
    { schema: { params: systemParams, querystring: userQuery } },
    async (request) => {
      requireUserParam(request.query);
      checkSystem(request.params.systemId);
      const fields = categoryFields(request.body, true);
      const parentId = fields.parentId ?? null;
      const row = {
        id: randomUUID(),
        name: fields.name!,
        description: fields.description ?? '',
        parent_id: parentId,
      };
      await db.transaction().execute(async (trx) => {
        if (parentId !== null) await checkParent(trx, parentId);
        await checkNameFree(trx, row.name, parentId);
        await trx
          .insertInto('app_categories')
          .values({ ...row, owner: null, is_public: true, created_on: now() })
          .execute();
      });
      return { ...entryOf(row, new Map()), parent_id: parentId };
    },
  );

  /** Renames, re-describes or moves (`parent_id`; null: to the top level). */
  app.patch<CategoryRequest>(
    '/admin/apps/categories/:systemId/:categoryId',
    { schema: { params: categoryParams, querystring: userQuery } },
    async (request) => {
      requireUserParam(request.query);
      checkSystem(request.params.systemId);
      const fields = categoryFields(request.body, false);
      const updated = await db.transaction().execute(async (trx) => {
        const current = await requireCategory(trx, request.params.categoryId);
        const next = {
          name: fields.name ?? current.name,
          description: fields.description ?? current.description,
          parent_id: fields.parentId === undefined ? current.parent_id : fields.parentId,
        };
        if (next.parent_id !== null && next.parent_id !== current.parent_id)
          await checkParent(trx, next.parent_id, current.id);
        await checkNameFree(trx, next.name, next.parent_id, current.id);
        await trx.updateTable('app_categories').set(next).where('id', '=', current.id).execute();
        return { ...current, ...next };
      });
      return { ...entryOf(updated, await appCounts(db)), parent_id: updated.parent_id };
    },
  );

  /** Only an empty category goes: one holding subcategories or (not deleted) apps is refused. */
  app.delete<CategoryRequest>(
    '/admin/apps/categories/:systemId/:categoryId',
    { schema: { params: categoryParams, querystring: userQuery } },
    async (request) => {
      requireUserParam(request.query);
      checkSystem(request.params.systemId);
      await db.transaction().execute(async (trx) => {
        const category = await requireCategory(trx, request.params.categoryId);
        const child = await trx
          .selectFrom('app_categories')
          .select('id')
          .where('parent_id', '=', category.id)
          .executeTakeFirst();
        if (child)
          throw gatewayError(
            'ERR_ILLEGAL_ARGUMENT',
            `category ${category.id} has subcategories; delete or move them first`,
            { category_id: category.id },
          );
        const holding = await trx
          .selectFrom('app_category_apps as c')
          .innerJoin('apps', 'apps.id', 'c.app_id')
          .select('apps.id')
          .where('c.category_id', '=', category.id)
          .where('apps.deleted', '=', false)
          .executeTakeFirst();
        if (holding)
          throw gatewayError(
            'ERR_ILLEGAL_ARGUMENT',
            `category ${category.id} holds apps; move them first`,
            { category_id: category.id },
          );
        // Links to deleted apps go with the category.
        await trx.deleteFrom('app_category_apps').where('category_id', '=', category.id).execute();
        await trx.deleteFrom('app_categories').where('id', '=', category.id).execute();
      });
      return { id: request.params.categoryId.toLowerCase() };
    },
  );

  /** Sets each named app's public categories to exactly those listed (an empty list takes it out of all). */
  app.post('/admin/apps', { schema: { querystring: userQuery } }, async (request) => {
    requireUserParam(request.query);
    const placements = categorizeBody(request.body);
    if (placements.length === 0) return { categories: [] };
    await db.transaction().execute(async (trx) => {
      const appIds = [...new Set(placements.map((placement) => placement.app_id))];
      const found = new Set(
        (
          await trx
            .selectFrom('apps')
            .select('id')
            .where('id', 'in', appIds)
            .where('deleted', '=', false)
            .execute()
        ).map((row) => row.id),
      );
      const missingApp = appIds.find((id) => !found.has(id));
      if (missingApp)
        throw gatewayError('ERR_NOT_FOUND', `no app ${missingApp}`, { app_id: missingApp });
      const categoryIds = [...new Set(placements.flatMap((placement) => placement.category_ids))];
      const known = new Set(
        categoryIds.length === 0
          ? []
          : (await publicCategories(trx).where('id', 'in', categoryIds).execute()).map(
              (row) => row.id,
            ),
      );
      const missingCategory = categoryIds.find((id) => !known.has(id));
      if (missingCategory) throw noCategory(missingCategory);
      for (const placement of placements) {
        await trx
          .deleteFrom('app_category_apps')
          .where('app_id', '=', placement.app_id)
          .where('category_id', 'in', (eb) =>
            eb
              .selectFrom('app_categories')
              .select('app_categories.id')
              .where('app_categories.owner', 'is', null),
          )
          .execute();
        if (placement.category_ids.length > 0) {
          await trx
            .insertInto('app_category_apps')
            .values(
              placement.category_ids.map((categoryId) => ({
                category_id: categoryId,
                app_id: placement.app_id,
              })),
            )
            .execute();
        }
      }
    });
    return { categories: placements };
  });
};

/** `{categories: [{system_id?, app_id, category_ids}]}`; an app named twice takes its last entry. */
function categorizeBody(
  body: unknown,
): { system_id: string; app_id: string; category_ids: string[] }[] {
  const list = bodyObject(body).categories;
  if (!Array.isArray(list))
    throw badField(
      'categories',
      'body field "categories" must be a list of {app_id, category_ids}',
    );
  const byApp = new Map<string, { system_id: string; app_id: string; category_ids: string[] }>();
  list.forEach((item, index) => {
    const at = `categories.${index}`;
    const {
      system_id: system = systemId,
      app_id: appId,
      category_ids: categoryIds,
    } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof system !== 'string' || system.toLowerCase() !== systemId)
      throw badField(`${at}.system_id`, `${at}.system_id must be "${systemId}"`);
    if (!isUuid(appId)) throw badField(`${at}.app_id`, `${at}.app_id must be an app id (UUID)`);
    if (!Array.isArray(categoryIds) || !categoryIds.every(isUuid))
      throw badField(
        `${at}.category_ids`,
        `${at}.category_ids must be a list of category ids (UUIDs)`,
      );
    const id = appId.toLowerCase();
    byApp.set(id, {
      system_id: systemId,
      app_id: id,
      category_ids: [...new Set(categoryIds.map((categoryId) => categoryId.toLowerCase()))].sort(),
    });
  });
  return [...byApp.values()];
}
