import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database, MetadataTargetType } from '../../store/schema.ts';
import { bodyObject, chunks, isUuid, targetTypes } from './requests.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * The AVU table's rules (backends.md §3.3), shared by the metadata service's AVU routes and the
 * apps service's app metadata (AVUs on `app` targets). An AVU may carry AVUs of its own: those
 * are rows whose target is the parent AVU (`target_type` `avu`), so nesting is as deep as a client
 * makes it. Each triple is unique per target. Listings are ordered by attribute, value and unit
 * (in the database's collation), so the same AVUs always list alike.
 */

type AvuRow = Selectable<Database['avus']>;
type Db = Kysely<Database>;

export interface Target {
  id: string;
  type: MetadataTargetType;
}

/** An AVU as a client sends it: `id` present means "this one", absent means "this triple". */
export interface AvuRequest {
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

export function badField(field: string, reason: string): Error {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

/** Parses `[AvuRequest]` at `field`, nested lists included. */
export function parseAvus(value: unknown, field: string, depth = 1): AvuRequest[] {
  if (!Array.isArray(value)) throw badField(field, `body field "${field}" must be a list of AVUs`);
  if (depth > MAX_DEPTH) throw badField(field, `AVUs nest at most ${MAX_DEPTH} levels deep`);
  return value.map((item, index) => {
    const at = `${field}.${index}`;
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      throw badField(at, `${at} must be an AVU object`);
    const { id, attr, value: avuValue, unit, avus } = item as Record<string, unknown>;
    if (typeof attr !== 'string' || attr.trim() === '')
      throw badField(`${at}.attr`, `${at}.attr must be a non-blank string`);
    if (typeof avuValue !== 'string') throw badField(`${at}.value`, `${at}.value must be a string`);
    if (unit !== undefined && unit !== null && typeof unit !== 'string')
      throw badField(`${at}.unit`, `${at}.unit must be a string`);
    if (id !== undefined && id !== null && !isUuid(id))
      throw badField(`${at}.id`, `${at}.id must be a UUID`);
    return {
      ...(typeof id === 'string' ? { id: id.toLowerCase() } : {}),
      attr,
      value: avuValue,
      unit: typeof unit === 'string' ? unit : '',
      ...(avus !== undefined && avus !== null
        ? { avus: parseAvus(avus, `${at}.avus`, depth + 1) }
        : {}),
    };
  });
}

/** The AVUs of a POST (add or update: `avus` required) or PUT (replace: no `avus` means none) body. */
export function requestedAvus(body: unknown, replace: boolean): AvuRequest[] {
  const raw = body === undefined || body === null ? {} : bodyObject(body);
  return raw.avus === undefined && replace ? [] : parseAvus(raw.avus, 'avus');
}

export function targetOf(params: { targetType: string; targetId: string }): Target {
  const type = params.targetType.toLowerCase() as MetadataTargetType;
  if (!targetTypes.includes(type))
    throw gatewayError('ERR_BAD_REQUEST', `target type must be one of ${targetTypes.join(', ')}`, {
      'target-type': params.targetType,
    });
  return { id: params.targetId.toLowerCase(), type };
}

const sameTriple = (row: AvuRow, avu: AvuRequest) =>
  row.attribute === avu.attr && row.value === avu.value && row.unit === avu.unit;

/** The rows, each with its nested AVUs (one query per nesting level). */
export async function withNested(db: Db, rows: AvuRow[]): Promise<AvuView[]> {
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
      const children = await db
        .selectFrom('avus')
        .selectAll()
        .where('target_type', '=', 'avu')
        .where('target_id', 'in', part)
        .orderBy('attribute')
        .orderBy('value')
        .orderBy('unit')
        .execute();
      for (const child of children) {
        views.get(child.target_id)?.avus.push(view(child));
        next.push(child.id);
      }
    }
    frontier = next;
  }
  return top;
}

export async function avusOf(db: Db, target: Target): Promise<AvuView[]> {
  const rows = await db
    .selectFrom('avus')
    .selectAll()
    .where('target_id', '=', target.id)
    .where('target_type', '=', target.type)
    .orderBy('attribute')
    .orderBy('value')
    .orderBy('unit')
    .execute();
  return withNested(db, rows);
}

/**
 * Deletes the AVUs and everything nested below them. Clients may choose AVU ids, so an AVU can
 * target itself or close a cycle: each id is visited once, or the walk would never end.
 */
export async function deleteAvus(db: Db, ids: string[]): Promise<void> {
  const all = new Set(ids);
  let frontier = [...all];
  while (frontier.length > 0) {
    const next: string[] = [];
    for (const part of chunks(frontier)) {
      const children = await db
        .selectFrom('avus')
        .select('id')
        .where('target_type', '=', 'avu')
        .where('target_id', 'in', part)
        .execute();
      for (const { id } of children) {
        if (!all.has(id)) next.push(id);
        all.add(id);
      }
    }
    frontier = next;
  }
  for (const part of chunks([...all]))
    await db.deleteFrom('avus').where('id', 'in', part).execute();
}

/** The AVUs targeting each target (`type/id`), as far down as a write reaches. */
type Children = Map<string, AvuRow[]>;

const keyOf = (target: Target) => `${target.type}/${target.id}`;

/** How many nesting levels a write visits: one per list of requests it reads the existing AVUs for. */
function levelsOf(requests: AvuRequest[], replace: boolean): number {
  const nested = requests
    .filter((avu) => avu.avus !== undefined || replace)
    .map((avu) => levelsOf(avu.avus ?? [], replace));
  return 1 + Math.max(0, ...nested);
}

/** The target's AVUs and those below them, `levels` deep: one query per level, not one per AVU. */
async function existingAvus(db: Db, target: Target, levels: number): Promise<Children> {
  const rows = await db
    .selectFrom('avus')
    .selectAll()
    .where('target_id', '=', target.id)
    .where('target_type', '=', target.type)
    .execute();
  const children: Children = new Map([[keyOf(target), rows]]);
  let frontier = rows.map((row) => row.id);
  for (let level = 1; level < levels && frontier.length > 0; level += 1) {
    const next: string[] = [];
    for (const id of frontier) children.set(keyOf({ id, type: 'avu' }), []);
    for (const part of chunks(frontier)) {
      for (const child of await db
        .selectFrom('avus')
        .selectAll()
        .where('target_type', '=', 'avu')
        .where('target_id', 'in', part)
        .execute()) {
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
export async function writeAvus(
  db: Db,
  user: string,
  now: number,
  target: Target,
  requests: AvuRequest[],
  replace: boolean,
): Promise<void> {
  const children = await existingAvus(db, target, levelsOf(requests, replace));
  await writeLevel(db, user, now, children, target, requests, replace);
}

/** writeAvus below one target, given what exists there (`children`, kept up to date as rows are written). */
async function writeLevel(
  db: Db,
  user: string,
  now: number,
  children: Children,
  target: Target,
  requests: AvuRequest[],
  replace: boolean,
): Promise<void> {
  const existing = children.get(keyOf(target)) ?? [];
  children.set(keyOf(target), existing);
  const kept = new Set<string>();
  for (const avu of requests) {
    let row = avu.id
      ? existing.find((candidate) => candidate.id === avu.id)
      : existing.find((candidate) => sameTriple(candidate, avu));
    const clash = existing.find(
      (candidate) => sameTriple(candidate, avu) && candidate.id !== row?.id,
    );
    if (avu.id && clash) {
      throw gatewayError(
        'ERR_NOT_UNIQUE',
        `the target already has the AVU ${JSON.stringify([avu.attr, avu.value, avu.unit])}`,
        { id: clash.id },
      );
    }
    if (row && !sameTriple(row, avu)) {
      await db
        .updateTable('avus')
        .set({
          attribute: avu.attr,
          value: avu.value,
          unit: avu.unit,
          modified_by: user,
          modified_on: now,
        })
        .where('id', '=', row.id)
        .execute();
      row = {
        ...row,
        attribute: avu.attr,
        value: avu.value,
        unit: avu.unit,
        modified_by: user,
        modified_on: now,
      };
      existing.splice(
        existing.findIndex((candidate) => candidate.id === row!.id),
        1,
        row,
      );
    }
    if (!row) {
      if (
        avu.id &&
        (await db.selectFrom('avus').select('id').where('id', '=', avu.id).executeTakeFirst())
      ) {
        throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `AVU ${avu.id} belongs to another target`, {
          id: avu.id,
        });
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
    if (avu.avus !== undefined || replace)
      await writeLevel(
        db,
        user,
        now,
        children,
        { id: row.id, type: 'avu' },
        avu.avus ?? [],
        replace,
      );
  }
  if (replace) {
    await deleteAvus(
      db,
      existing.filter((row) => !kept.has(row.id)).map((row) => row.id),
    );
    existing.splice(0, existing.length, ...existing.filter((row) => kept.has(row.id)));
  }
}

/**
 * Changes the value of every top-level AVU with `attribute` and value `from` on targets of
 * `targetType` to `to` (a renamed community's app tags); answers how many changed. A target that
 * already carries the new triple keeps it, and loses the old one.
 */
export async function renameAvuValues(
  db: Db,
  change: { targetType: MetadataTargetType; attribute: string; from: string; to: string },
  user: string,
  now: number,
): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const rows = await trx
      .selectFrom('avus')
      .select(['id', 'target_id', 'unit'])
      .where('target_type', '=', change.targetType)
      .where('attribute', '=', change.attribute)
      .where('value', '=', change.from)
      .execute();
    for (const row of rows) {
      const clash = await trx
        .selectFrom('avus')
        .select('id')
        .where('target_type', '=', change.targetType)
        .where('target_id', '=', row.target_id)
        .where('attribute', '=', change.attribute)
        .where('value', '=', change.to)
        .where('unit', '=', row.unit)
        .executeTakeFirst();
      if (clash) await deleteAvus(trx, [row.id]);
      else
        await trx
          .updateTable('avus')
          .set({ value: change.to, modified_by: user, modified_on: now })
          .where('id', '=', row.id)
          .execute();
    }
    return rows.length;
  });
}

/** The ids of targets of `targetType` carrying a top-level AVU with this attribute and value. */
export async function targetIdsWithAvu(
  db: Db,
  avu: { targetType: MetadataTargetType; attribute: string; value: string },
): Promise<string[]> {
  const rows = await db
    .selectFrom('avus')
    .select('target_id')
    .distinct()
    .where('target_type', '=', avu.targetType)
    .where('attribute', '=', avu.attribute)
    .where('value', '=', avu.value)
    .orderBy('target_id')
    .execute();
  return rows.map((row) => row.target_id);
}

/**
 * The ids of the targets of `type` carrying an AVU `attribute` whose value is one of `values`: a
 * subquery, so a listing can select what carries a tag (an app's community tags) in one query.
 */
export function targetsWithAvu(
  db: Db,
  type: MetadataTargetType,
  attribute: string,
  values: readonly string[],
) {
  return db
    .selectFrom('avus')
    .select('avus.target_id')
    .where('avus.target_type', '=', type)
    .where('avus.attribute', '=', attribute)
    .where('avus.value', 'in', values.length ? [...values] : ['']);
}
