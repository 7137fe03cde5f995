import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { Type } from 'typebox';
import type { Database, MetadataTargetType } from '../../store/schema.js';
import { bodyObject, chunks, isUuid, listParam, metadataError, targetTypes, userOf, userQuery, Uuid, type MetadataRoutes } from './requests.js';

/**
 * AVUs, attribute/value/unit triples on any target (backends.md §3.3). An AVU may carry AVUs of
 * its own: those are rows whose target is the parent AVU (`target_type` `avu`), so nesting is
 * as deep as a client makes it. Each triple is unique per target. Listings are ordered by
 * attribute, value and unit (in the database's collation), so the same AVUs always list alike.
 */

type AvuRow = Selectable<Database['avus']>;
type Db = Kysely<Database>;

interface Target {
  id: string;
  type: MetadataTargetType;
}

/** An AVU as a client sends it: `id` present means "this one", absent means "this triple". */
interface AvuRequest {
  id?: string;
  attr: string;
  value: string;
  unit: string;
  /** Undefined: leave nested AVUs alone (add); on a replace, undefined means none. */
  avus?: AvuRequest[];
}

const MAX_DEPTH = 10;

/** An AVU as the API shows it: its row, with the attribute named `attr`, and its nested AVUs. */
export interface AvuView extends Omit<AvuRow, 'attribute'> {
  attr: string;
  avus: AvuView[];
}

function badField(field: string, reason: string): Error {
  return metadataError(400, 'ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

/** Parses `[AvuRequest]` at `field`, nested lists included. */
function parseAvus(value: unknown, field: string, depth = 1): AvuRequest[] {
  if (!Array.isArray(value)) throw badField(field, `body field "${field}" must be a list of AVUs`);
  if (depth > MAX_DEPTH) throw badField(field, `AVUs nest at most ${MAX_DEPTH} levels deep`);
  return value.map((item, index) => {
    const at = `${field}.${index}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item)) throw badField(at, `${at} must be an AVU object`);
    const { id, attr, value: avuValue, unit, avus } = item as Record<string, unknown>;
    if (typeof attr !== 'string' || attr.trim() === '') throw badField(`${at}.attr`, `${at}.attr must be a non-blank string`);
    if (typeof avuValue !== 'string') throw badField(`${at}.value`, `${at}.value must be a string`);
    if (unit !== undefined && unit !== null && typeof unit !== 'string') throw badField(`${at}.unit`, `${at}.unit must be a string`);
    if (id !== undefined && id !== null && !isUuid(id)) throw badField(`${at}.id`, `${at}.id must be a UUID`);
    return {
      ...(typeof id === 'string' ? { id: id.toLowerCase() } : {}),
      attr,
      value: avuValue,
      unit: typeof unit === 'string' ? unit : '',
      ...(avus !== undefined && avus !== null ? { avus: parseAvus(avus, `${at}.avus`, depth + 1) } : {}),
    };
  });
}

function targetOf(params: { targetType: string; targetId: string }): Target {
  const type = params.targetType.toLowerCase() as MetadataTargetType;
  if (!targetTypes.includes(type)) throw metadataError(400, 'ERR_BAD_REQUEST', `target type must be one of ${targetTypes.join(', ')}`, { 'target-type': params.targetType });
  return { id: params.targetId.toLowerCase(), type };
}

const sameTriple = (row: AvuRow, avu: AvuRequest) => row.attribute === avu.attr && row.value === avu.value && row.unit === avu.unit;

/** The rows, each with its nested AVUs (one query per nesting level). */
async function withNested(db: Db, rows: AvuRow[]): Promise<AvuView[]> {
  const views = new Map<string, AvuView>();
  const view = (row: AvuRow): AvuView => {
    const made: AvuView = {
      id: row.id,
      attr: row.attribute,
      value: row.value,
      unit: row.unit,
      target_id: row.target_id,
      target_type: row.target_type,
      created_by: row.created_by,
      modified_by: row.modified_by,
      created_on: Number(row.created_on),
      modified_on: Number(row.modified_on),
      avus: [],
    };
    views.set(row.id, made);
    return made;
  };
  const top = rows.map(view);
  let frontier = rows.map((row) => row.id);
  for (let depth = 0; frontier.length > 0 && depth <= MAX_DEPTH; depth += 1) {
    const next: string[] = [];
    for (const part of chunks(frontier)) {
      const children = await db.selectFrom('avus').selectAll().where('target_type', '=', 'avu').where('target_id', 'in', part).orderBy('attribute').orderBy('value').orderBy('unit').execute();
      for (const child of children) {
        views.get(child.target_id)?.avus.push(view(child));
        next.push(child.id);
      }
    }
    frontier = next;
  }
  return top;
}

async function avusOf(db: Db, target: Target): Promise<AvuView[]> {
  const rows = await db.selectFrom('avus').selectAll().where('target_id', '=', target.id).where('target_type', '=', target.type).orderBy('attribute').orderBy('value').orderBy('unit').execute();
  return withNested(db, rows);
}

/** Deletes the AVUs and everything nested below them. */
async function deleteAvus(db: Db, ids: string[]): Promise<void> {
  const all = [...ids];
  let frontier = ids;
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const part of chunks(frontier)) {
      const children = await db.selectFrom('avus').select('id').where('target_type', '=', 'avu').where('target_id', 'in', part).execute();
      next.push(...children.map((child) => child.id));
    }
    all.push(...next);
    frontier = next;
  }
  for (const part of chunks(all)) await db.deleteFrom('avus').where('id', 'in', part).execute();
}

/** The AVUs targeting each target (`type/id`), as far down as a write reaches. */
type Children = Map<string, AvuRow[]>;

const keyOf = (target: Target) => `${target.type}/${target.id}`;

/** How many nesting levels a write visits: one per list of requests it reads the existing AVUs for. */
function levelsOf(requests: AvuRequest[], replace: boolean): number {
  const nested = requests.filter((avu) => avu.avus !== undefined || replace).map((avu) => levelsOf(avu.avus ?? [], replace));
  return 1 + Math.max(0, ...nested);
}

/** The target's AVUs and those below them, `levels` deep: one query per level, not one per AVU. */
async function existingAvus(db: Db, target: Target, levels: number): Promise<Children> {
  const rows = await db.selectFrom('avus').selectAll().where('target_id', '=', target.id).where('target_type', '=', target.type).execute();
  const children: Children = new Map([[keyOf(target), rows]]);
  let frontier = rows.map((row) => row.id);
  for (let level = 1; level < levels && frontier.length > 0; level += 1) {
    const next: string[] = [];
    for (const id of frontier) children.set(keyOf({ id, type: 'avu' }), []);
    for (const part of chunks(frontier)) {
      for (const child of await db.selectFrom('avus').selectAll().where('target_type', '=', 'avu').where('target_id', 'in', part).execute()) {
        children.get(keyOf({ id: child.target_id, type: 'avu' }))!.push(child);
        next.push(child.id);
      }
    }
    frontier = next;
  }
  return children;
}

/**
 * Adds (or, with `replace`, sets) the AVUs of a target. Without an id an AVU whose triple the
 * target already has is that one; with an id it is written only when something differs. On a
 * replace, AVUs of the target not named are deleted, nested ones level by level the same way.
 */
async function writeAvus(db: Db, user: string, now: number, target: Target, requests: AvuRequest[], replace: boolean): Promise<void> {
  const children = await existingAvus(db, target, levelsOf(requests, replace));
  await writeLevel(db, user, now, children, target, requests, replace);
}

/** writeAvus below one target, given what exists there (`children`, kept up to date as rows are written). */
async function writeLevel(db: Db, user: string, now: number, children: Children, target: Target, requests: AvuRequest[], replace: boolean): Promise<void> {
  const existing = children.get(keyOf(target)) ?? [];
  children.set(keyOf(target), existing);
  const kept = new Set<string>();
  for (const avu of requests) {
    let row = avu.id ? existing.find((candidate) => candidate.id === avu.id) : existing.find((candidate) => sameTriple(candidate, avu));
    const clash = existing.find((candidate) => sameTriple(candidate, avu) && candidate.id !== row?.id);
    if (avu.id && clash) {
      throw metadataError(400, 'ERR_NOT_UNIQUE', `the target already has the AVU ${JSON.stringify([avu.attr, avu.value, avu.unit])}`, { id: clash.id });
    }
    if (row && !sameTriple(row, avu)) {
      await db.updateTable('avus').set({ attribute: avu.attr, value: avu.value, unit: avu.unit, modified_by: user, modified_on: now }).where('id', '=', row.id).execute();
      row = { ...row, attribute: avu.attr, value: avu.value, unit: avu.unit, modified_by: user, modified_on: now };
      existing.splice(existing.findIndex((candidate) => candidate.id === row!.id), 1, row);
    }
    if (!row) {
      if (avu.id && (await db.selectFrom('avus').select('id').where('id', '=', avu.id).executeTakeFirst())) {
        throw metadataError(400, 'ERR_BAD_OR_MISSING_FIELD', `AVU ${avu.id} belongs to another target`, { id: avu.id });
      }
      row = {
        id: avu.id ?? randomUUID(),
        attribute: avu.attr,
        value: avu.value,
        unit: avu.unit,
        target_id: target.id,
        target_type: target.type,
        created_by: user,
        modified_by: user,
        created_on: now,
        modified_on: now,
      };
      await db.insertInto('avus').values(row).execute();
      existing.push(row);
      // A new row has nothing below it, even when its id is that of a row deleted earlier in this write.
      children.set(keyOf({ id: row.id, type: 'avu' }), []);
    }
    kept.add(row.id);
    if (avu.avus !== undefined || replace) await writeLevel(db, user, now, children, { id: row.id, type: 'avu' }, avu.avus ?? [], replace);
  }
  if (replace) {
    await deleteAvus(db, existing.filter((row) => !kept.has(row.id)).map((row) => row.id));
    existing.splice(0, existing.length, ...existing.filter((row) => kept.has(row.id)));
  }
}

/** Copies AVU trees onto a target, skipping triples it already has. */
async function copyTrees(db: Db, user: string, now: number, target: Target, trees: AvuView[]): Promise<void> {
  const toRequest = (view: AvuView): AvuRequest => ({ attr: view.attr, value: view.value, unit: view.unit, avus: view.avus.map(toRequest) });
  await writeAvus(db, user, now, target, trees.map(toRequest), false);
}

/** The filter keys of GET /avus and POST /avus/search, each a list of accepted values. */
const searchKeys = { attribute: 'attribute', value: 'value', unit: 'unit', 'target-id': 'target_id', 'target-type': 'target_type' } as const;

async function search(db: Db, filters: Record<keyof typeof searchKeys, string[]>): Promise<AvuView[]> {
  let query = db.selectFrom('avus').selectAll();
  for (const [key, column] of Object.entries(searchKeys) as [keyof typeof searchKeys, (typeof searchKeys)[keyof typeof searchKeys]][]) {
    const values = key === 'target-id' || key === 'target-type' ? filters[key].map((value) => value.toLowerCase()) : filters[key];
    if (values.length > 0) query = query.where(column, 'in', values);
  }
  const rows = await query.orderBy('target_id').orderBy('attribute').orderBy('value').orderBy('unit').execute();
  return withNested(db, rows);
}

function searchBody(body: unknown): Record<keyof typeof searchKeys, string[]> {
  const object = bodyObject(body);
  return Object.fromEntries(
    Object.keys(searchKeys).map((key) => {
      const raw = object[key];
      const list = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
      if (list.some((item) => typeof item !== 'string')) throw badField(key, `body field "${key}" must be a list of strings`);
      return [key, list as string[]];
    }),
  ) as Record<keyof typeof searchKeys, string[]>;
}

/** `{target-types, target-ids}` of the bulk routes. */
export function targetLists(object: Record<string, unknown>): { types: MetadataTargetType[]; ids: string[] } {
  const strings = (field: string) => {
    const value = object[field];
    if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) throw badField(field, `body field "${field}" must be a list of strings`);
    return value as string[];
  };
  const types = strings('target-types').map((type) => type.toLowerCase());
  const bad = types.find((type) => !targetTypes.includes(type as MetadataTargetType));
  if (bad !== undefined) throw badField('target-types', `unknown target type ${JSON.stringify(bad)}`);
  return { types: types as MetadataTargetType[], ids: strings('target-ids').map((id) => id.toLowerCase()) };
}

/** `avus: [{attr, value, unit?}]` of the bulk routes. */
function avuPatterns(object: Record<string, unknown>): { attr: string; value: string; unit?: string }[] {
  const list = object.avus;
  if (!Array.isArray(list)) throw badField('avus', 'body field "avus" must be a list of {attr, value}');
  return list.map((item, index) => {
    const { attr, value, unit } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
    if (typeof attr !== 'string' || typeof value !== 'string' || (unit !== undefined && typeof unit !== 'string')) {
      throw badField(`avus.${index}`, `avus.${index} must be {attr, value} strings`);
    }
    return { attr, value, ...(typeof unit === 'string' ? { unit } : {}) };
  });
}

const targetParams = Type.Object({ targetType: Type.String({ minLength: 1, maxLength: 32 }), targetId: Uuid });
type TargetRequest = { Params: { targetType: string; targetId: string } };

export const avuRoutes: MetadataRoutes = async (app, { db, now }) => {
  app.get('/avus', async (request) => {
    const filters = Object.fromEntries(Object.keys(searchKeys).map((key) => [key, listParam(request.query, key)])) as Record<keyof typeof searchKeys, string[]>;
    return { avus: await search(db, filters) };
  });

  app.post('/avus/search', async (request) => ({ avus: await search(db, searchBody(request.body)) }));

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
          .where((eb) => eb.or(patterns.map((pattern) => eb.and([eb('attribute', '=', pattern.attr), eb('value', '=', pattern.value)]))))
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
              eb.or(patterns.map((pattern) => eb.and([eb('attribute', '=', pattern.attr), eb('value', '=', pattern.value), ...(pattern.unit !== undefined ? [eb('unit', '=', pattern.unit)] : [])]))),
            )
            .execute();
          await deleteAvus(trx, rows.map((row) => row.id));
        }
      });
    }
    return reply.code(200).send();
  });

  app.get<TargetRequest>('/avus/:targetType/:targetId', { schema: { params: targetParams } }, async (request) => ({ avus: await avusOf(db, targetOf(request.params)) }));

  for (const [method, replace] of [['POST', false], ['PUT', true]] as const) {
    app.route<TargetRequest>({
      method,
      url: '/avus/:targetType/:targetId',
      schema: { params: targetParams, querystring: userQuery },
      handler: async (request) => {
        const user = userOf(request);
        const target = targetOf(request.params);
        const raw = request.body === undefined || request.body === null ? {} : bodyObject(request.body);
        // PUT without `avus` deletes them all; POST needs a list.
        const requests = raw.avus === undefined && replace ? [] : parseAvus(raw.avus, 'avus');
        await db.transaction().execute((trx) => writeAvus(trx, user, now(), target, requests, replace));
        return { avus: await avusOf(db, target) };
      },
    });
  }

  app.post<TargetRequest>('/avus/:targetType/:targetId/copy', { schema: { params: targetParams, querystring: userQuery } }, async (request, reply) => {
    const user = userOf(request);
    const source = targetOf(request.params);
    const list = bodyObject(request.body).targets;
    if (!Array.isArray(list)) throw badField('targets', 'body field "targets" must be a list of {id, type}');
    const targets = list.map((item, index) => {
      const { id, type } = (typeof item === 'object' && item !== null ? item : {}) as Record<string, unknown>;
      if (!isUuid(id) || typeof type !== 'string' || !targetTypes.includes(type.toLowerCase() as MetadataTargetType)) {
        throw badField(`targets.${index}`, `targets.${index} must be {id: UUID, type: one of ${targetTypes.join(', ')}}`);
      }
      return targetOf({ targetId: id, targetType: type });
    });
    const trees = await avusOf(db, source);
    const time = now();
    await db.transaction().execute(async (trx) => {
      for (const target of targets) await copyTrees(trx, user, time, target, trees);
    });
    return reply.code(200).send();
  });
};
