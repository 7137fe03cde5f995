import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database, MetadataTargetType } from '../../store/schema.ts';
import {
  avusOf,
  badField,
  deleteAvus,
  requestedAvus,
  targetOf,
  withNested,
  writeAvus,
  type AvuRequest,
  type AvuView,
  type Target,
} from './avu-store.ts';
import {
  bodyObject,
  chunks,
  isUuid,
  targetTypes,
  userOf,
  userQuery,
  Uuid,
  type MetadataRoutes,
} from './requests.ts';
import { listParam } from '../../common/query-params.ts';

/** The AVU routes (backends.md §3.3); the table's rules are in avu-store.ts. */

type Db = Kysely<Database>;

/** Copies AVU trees onto a target, skipping triples it already has. */
async function copyTrees(
  db: Db,
  user: string,
  now: number,
  target: Target,
  trees: AvuView[],
): Promise<void> {
  const toRequest = (view: AvuView): AvuRequest => ({
    attr: view.attr,
    value: view.value,
    unit: view.unit,
    avus: view.avus.map(toRequest),
  });
  await writeAvus(db, user, now, target, trees.map(toRequest), false);
}

/** The filter keys of GET /avus and POST /avus/search, each a list of accepted values. */
const searchKeys = {
  attribute: 'attribute',
  value: 'value',
  unit: 'unit',
  'target-id': 'target_id',
  'target-type': 'target_type',
} as const;

async function search(
  db: Db,
  filters: Record<keyof typeof searchKeys, string[]>,
): Promise<AvuView[]> {
  let query = db.selectFrom('avus').selectAll();
  for (const [key, column] of Object.entries(searchKeys) as [
    keyof typeof searchKeys,
    (typeof searchKeys)[keyof typeof searchKeys],
  ][]) {
    const values =
      key === 'target-id' || key === 'target-type'
        ? filters[key].map((value) => value.toLowerCase())
        : filters[key];
    if (values.length > 0) query = query.where(column, 'in', values);
  }
  const rows = await query
    .orderBy('target_id')
    .orderBy('attribute')
    .orderBy('value')
    .orderBy('unit')
    .execute();
  return withNested(db, rows);
}

function searchBody(body: unknown): Record<keyof typeof searchKeys, string[]> {
  const object = bodyObject(body);
  return Object.fromEntries(
    Object.keys(searchKeys).map((key) => {
      const raw = object[key];
      const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      if (list.some((item) => typeof item !== 'string'))
        throw badField(key, `body field "${key}" must be a list of strings`);
      return [key, list as string[]];
    }),
  ) as Record<keyof typeof searchKeys, string[]>;
}

/** `{target-types, target-ids}` of the bulk routes. */
export function targetLists(object: Record<string, unknown>): {
  types: MetadataTargetType[];
  ids: string[];
} {
  const strings = (field: string) => {
    const value = object[field];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
      throw badField(field, `body field "${field}" must be a list of strings`);
    return value as string[];
  };
  const types = strings('target-types').map((type) => type.toLowerCase());
  const bad = types.find((type) => !targetTypes.includes(type as MetadataTargetType));
  if (bad !== undefined)
    throw badField('target-types', `unknown target type ${JSON.stringify(bad)}`);
  return {
    types: types as MetadataTargetType[],
    ids: strings('target-ids').map((id) => id.toLowerCase()),
  };
}

/** `avus: [{attr, value, unit?}]` of the bulk routes. */
function avuPatterns(
  object: Record<string, unknown>,
): { attr: string; value: string; unit?: string }[] {
  const list = object.avus;
  if (!Array.isArray(list))
    throw badField('avus', 'body field "avus" must be a list of {attr, value}');
  return list.map((item, index) => {
    const { attr, value, unit } = (typeof item === 'object' && item !== null ? item : {}) as Record<
      string,
      unknown
    >;
    if (
      typeof attr !== 'string' ||
      typeof value !== 'string' ||
      (unit !== undefined && typeof unit !== 'string')
    ) {
      throw badField(`avus.${index}`, `avus.${index} must be {attr, value} strings`);
    }
    return { attr, value, ...(typeof unit === 'string' ? { unit } : {}) };
  });
}

const targetParams = Type.Object({
  targetType: Type.String({ minLength: 1, maxLength: 32 }),
  targetId: Uuid,
});
type TargetRequest = { Params: { targetType: string; targetId: string } };

export const avuRoutes: MetadataRoutes = async (app, { db, now }) => {
  app.get('/avus', async (request) => {
    const filters = Object.fromEntries(
      Object.keys(searchKeys).map((key) => [key, listParam(request.query, key)]),
    ) as Record<keyof typeof searchKeys, string[]>;
    return { avus: await search(db, filters) };
  });

  app.post('/avus/search', async (request) => ({
    avus: await search(db, searchBody(request.body)),
  }));

  app.post('/avus/filter-targets', async (request) => {
    const object = bodyObject(request.body);
    const { types, ids } = targetLists(object);
    const patterns = avuPatterns(object);
    const found = new Set<string>();
    if (types.length > 0 && patterns.length > 0) {
      for (const part of chunks([...new Set(ids)])) {
        const rows = await db
          .selectFrom('avus')
          .select('target_id')
          .distinct()
          .where('target_type', 'in', types)
          .where('target_id', 'in', part)
          .where((eb) =>
            eb.or(
              patterns.map((pattern) =>
                eb.and([eb('attribute', '=', pattern.attr), eb('value', '=', pattern.value)]),
              ),
            ),
          )
          .execute();
        for (const row of rows) found.add(row.target_id);
      }
    }
    return { 'target-ids': [...new Set(ids)].filter((id) => found.has(id)) };
  });

  app.post('/avus/deleter', { schema: { querystring: userQuery } }, async (request, reply) => {
    userOf(request);
    const object = bodyObject(request.body);
    const { types, ids } = targetLists(object);
    const patterns = avuPatterns(object);
    if (types.length > 0 && ids.length > 0 && patterns.length > 0) {
      await db.transaction().execute(async (trx) => {
        for (const part of chunks([...new Set(ids)])) {
          const rows = await trx
            .selectFrom('avus')
            .select('id')
            .where('target_type', 'in', types)
            .where('target_id', 'in', part)
            .where((eb) =>
              eb.or(
                patterns.map((pattern) =>
                  eb.and([
                    eb('attribute', '=', pattern.attr),
                    eb('value', '=', pattern.value),
                    ...(pattern.unit !== undefined ? [eb('unit', '=', pattern.unit)] : []),
                  ]),
                ),
              ),
            )
            .execute();
          await deleteAvus(
            trx,
            rows.map((row) => row.id),
          );
        }
      });
    }
    return reply.code(200).send();
  });

  app.get<TargetRequest>(
    '/avus/:targetType/:targetId',
    { schema: { params: targetParams } },
    async (request) => ({ avus: await avusOf(db, targetOf(request.params)) }),
  );

  for (const [method, replace] of [
    ['POST', false],
    ['PUT', true],
  ] as const) {
    app.route<TargetRequest>({
      method,
      url: '/avus/:targetType/:targetId',
      schema: { params: targetParams, querystring: userQuery },
      handler: async (request) => {
        const user = userOf(request);
        const target = targetOf(request.params);
        const requests = requestedAvus(request.body, replace);
        await db
          .transaction()
          .execute((trx) => writeAvus(trx, user, now(), target, requests, replace));
        return { avus: await avusOf(db, target) };
      },
    });
  }

  app.post<TargetRequest>(
    '/avus/:targetType/:targetId/copy',
    { schema: { params: targetParams, querystring: userQuery } },
    async (request, reply) => {
      const user = userOf(request);
      const source = targetOf(request.params);
      const list = bodyObject(request.body).targets;
      if (!Array.isArray(list))
        throw badField('targets', 'body field "targets" must be a list of {id, type}');
      const targets = list.map((item, index) => {
        const { id, type } = (typeof item === 'object' && item !== null ? item : {}) as Record<
          string,
          unknown
        >;
        if (
          !isUuid(id) ||
          typeof type !== 'string' ||
          !targetTypes.includes(type.toLowerCase() as MetadataTargetType)
        ) {
          throw badField(
            `targets.${index}`,
            `targets.${index} must be {id: UUID, type: one of ${targetTypes.join(', ')}}`,
          );
        }
        return targetOf({ targetId: id, targetType: type });
      });
      const trees = await avusOf(db, source);
      const time = now();
      await db.transaction().execute(async (trx) => {
        for (const target of targets) await copyTrees(trx, user, time, target, trees);
      });
      return reply.code(200).send();
    },
  );
};
