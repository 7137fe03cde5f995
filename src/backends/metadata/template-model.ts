import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable, Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { chunks } from './requests.ts';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import type { AttributeInput, TemplateInput } from './template-body.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Metadata templates in the store (backends.md §3.5): reading a template with its attribute tree,
 * writing one from a checked body, deleting. Times are stored in milliseconds and shown as ISO dates.
 */

type Db = Kysely<Database> | Transaction<Database>;
type TemplateRow = Selectable<Database['metadata_templates']>;
type AttributeRow = Selectable<Database['metadata_attributes']> & { type: string };

export interface TemplateSummary {
  id: string;
  name: string;
  description?: string;
  deleted: boolean;
  created_by: string;
  created_on: string;
  modified_by: string;
  modified_on: string;
}

export interface Attr {
  id: string;
  name: string;
  description: string;
  created_by: string;
  created_on: string;
  modified_by: string;
  modified_on: string;
  synonyms: string[];
  required: boolean;
  type: string;
  values?: { id: string; is_default: boolean; value: string }[];
  settings?: unknown;
  attributes: Attr[];
}

export interface Template extends TemplateSummary {
  attributes: Attr[];
}

const iso = (ms: number) => new Date(Number(ms)).toISOString();

export function templateNotFound(id: string): Error {
  return gatewayError('ERR_NOT_FOUND', `metadata template ${id} not found`, { id });
}

function summary(row: TemplateRow): TemplateSummary {
  return {
    id: row.id,
    name: row.name,
    ...(row.description === null ? {} : { description: row.description }),
    deleted: asBoolean(row.deleted),
    created_by: row.created_by,
    created_on: iso(row.created_on),
    modified_by: row.modified_by,
    modified_on: iso(row.modified_on),
  };
}

/** Templates ordered by name; deleted ones only when asked (the admin listing). */
export async function listTemplates(db: Db, includeDeleted: boolean): Promise<TemplateSummary[]> {
  let query = db.selectFrom('metadata_templates').selectAll();
  if (!includeDeleted) query = query.where('deleted', '=', false);
  const rows = await query.orderBy('name').orderBy('id').execute();
  return rows.map(summary);
}

function attributeQuery(db: Db) {
  return db
    .selectFrom('metadata_attributes as a')
    .innerJoin('metadata_value_types as vt', 'vt.id', 'a.value_type_id')
    .selectAll('a')
    .select('vt.name as type');
}

/**
 * Presents attribute rows with their enum values, synonyms and children: one query per kind of
 * detail and one per level of nesting, whatever the number of attributes.
 */
async function presentAttributes(db: Db, rows: AttributeRow[]): Promise<Attr[]> {
  if (rows.length === 0) return [];
  const ids = rows.map((row) => row.id);
  const values = new Map<string, { id: string; is_default: boolean; value: string }[]>();
  const synonyms = new Map<string, string[]>();
  const children = new Map<string, AttributeRow[]>();
  for (const part of chunks(ids)) {
    const valueRows = await db
      .selectFrom('metadata_attr_enum_values')
      .selectAll()
      .where('attribute_id', 'in', part)
      .orderBy('display_order')
      .execute();
    for (const row of valueRows) {
      const list = values.get(row.attribute_id) ?? [];
      list.push({ id: row.id, is_default: asBoolean(row.is_default), value: row.value });
      values.set(row.attribute_id, list);
    }
    const synonymRows = await db
      .selectFrom('metadata_attr_synonyms')
      .selectAll()
      .where('attribute_id', 'in', part)
      .orderBy('synonym_id')
      .execute();
    for (const row of synonymRows)
      synonyms.set(row.attribute_id, [...(synonyms.get(row.attribute_id) ?? []), row.synonym_id]);
    const childRows = await attributeQuery(db)
      .innerJoin('metadata_attr_attrs as aa', 'aa.child_id', 'a.id')
      .select('aa.parent_id')
      .where('aa.parent_id', 'in', part)
      .orderBy('aa.display_order')
      .execute();
    for (const row of childRows)
      children.set(row.parent_id, [...(children.get(row.parent_id) ?? []), row]);
  }
  const presentedChildren = new Map<string, Attr>();
  for (const attr of await presentAttributes(db, [...children.values()].flat()))
    presentedChildren.set(attr.id, attr);
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    description: row.description,
    created_by: row.created_by,
    created_on: iso(row.created_on),
    modified_by: row.modified_by,
    modified_on: iso(row.modified_on),
    synonyms: synonyms.get(row.id) ?? [],
    required: asBoolean(row.required),
    type: row.type,
    ...(row.type === 'Enum' ? { values: values.get(row.id) ?? [] } : {}),
    ...(row.settings === null ? {} : { settings: JSON.parse(row.settings) as unknown }),
    attributes: (children.get(row.id) ?? []).map((child) => presentedChildren.get(child.id)!),
  }));
}

/** One template with its attributes, or undefined. */
export async function findTemplate(db: Db, id: string): Promise<Template | undefined> {
  const row = await db
    .selectFrom('metadata_templates')
    .selectAll()
    .where('id', '=', id.toLowerCase())
    .executeTakeFirst();
  if (!row) return undefined;
  const attributeRows = await attributeQuery(db)
    .innerJoin('metadata_template_attrs as ta', 'ta.attribute_id', 'a.id')
    .where('ta.template_id', '=', row.id)
    .orderBy('ta.display_order')
    .execute();
  return { ...summary(row), attributes: await presentAttributes(db, attributeRows) };
}

export async function requireTemplate(db: Db, id: string): Promise<Template> {
  const template = await findTemplate(db, id);
  if (!template) throw templateNotFound(id);
  return template;
}

export async function findAttribute(db: Db, id: string): Promise<Attr | undefined> {
  const row = await attributeQuery(db).where('a.id', '=', id.toLowerCase()).executeTakeFirst();
  return row ? (await presentAttributes(db, [row]))[0] : undefined;
}

/** Ids of every attribute of a template, children included. */
async function attributeTree(db: Db, templateId: string): Promise<string[]> {
  const top = await db
    .selectFrom('metadata_template_attrs')
    .select('attribute_id')
    .where('template_id', '=', templateId)
    .execute();
  const all = top.map((row) => row.attribute_id);
  for (let level = all; level.length > 0;) {
    const next: string[] = [];
    for (const part of chunks(level)) {
      const rows = await db
        .selectFrom('metadata_attr_attrs')
        .select('child_id')
        .where('parent_id', 'in', part)
        .execute();
      next.push(...rows.map((row) => row.child_id));
    }
    all.push(...next);
    level = next;
  }
  return all;
}

interface Writing {
  trx: Transaction<Database>;
  user: string;
  now: number;
  typeIds: Map<string, string>;
  /** Attributes of the template before this write: an input naming one of these updates it. */
  reusable: Set<string>;
}

/** Writes one attribute (inserted, or updated when it already belongs to the template) and its values and children. */
async function writeAttribute(writing: Writing, input: AttributeInput): Promise<string> {
  const { trx, user, now } = writing;
  const columns = {
    name: input.name,
    description: input.description,
    required: input.required,
    value_type_id: writing.typeIds.get(input.type)!,
    settings: input.settings,
    modified_by: user,
    modified_on: now,
  };
  let id: string;
  if (input.id !== undefined && writing.reusable.has(input.id)) {
    id = input.id;
    writing.reusable.delete(id);
    await trx.updateTable('metadata_attributes').set(columns).where('id', '=', id).execute();
    await trx.deleteFrom('metadata_attr_enum_values').where('attribute_id', '=', id).execute();
  } else {
    id = randomUUID();
    await trx
      .insertInto('metadata_attributes')
      .values({ id, ...columns, created_by: user, created_on: now })
      .execute();
  }
  const values = input.values.map((value, order) => ({
    id: randomUUID(),
    attribute_id: id,
    value: value.value,
    is_default: value.is_default,
    display_order: order,
  }));
  // 5 parameters a row: 100 rows stay under either engine's bound-parameter limit.
  for (const part of chunks(values, 100))
    await trx.insertInto('metadata_attr_enum_values').values(part).execute();
  for (const [order, child] of input.attributes.entries()) {
    const childId = await writeAttribute(writing, child);
    await trx
      .insertInto('metadata_attr_attrs')
      .values({ parent_id: id, child_id: childId, display_order: order })
      .execute();
  }
  return id;
}

async function valueTypeIds(trx: Transaction<Database>): Promise<Map<string, string>> {
  const rows = await trx.selectFrom('metadata_value_types').select(['id', 'name']).execute();
  return new Map(rows.map((row) => [row.name, row.id]));
}

/**
 * Creates a template (no `id`) or replaces one: its fields, and its attribute list, where an
 * attribute keeping the id of one of the template's attributes is updated in place and the
 * template's attributes left out are deleted. Answers the template's id.
 */
export async function saveTemplate(
  db: Kysely<Database>,
  user: string,
  now: number,
  input: TemplateInput,
  id?: string,
): Promise<string> {
  return db.transaction().execute(async (trx) => {
    const templateId = id?.toLowerCase() ?? randomUUID();
    let previous: string[] = [];
    if (id === undefined) {
      await trx
        .insertInto('metadata_templates')
        .values({
          id: templateId,
          name: input.name,
          description: input.description,
          deleted: input.deleted ?? false,
          created_by: user,
          modified_by: user,
          created_on: now,
          modified_on: now,
        })
        .execute();
    } else {
      const updated = await trx
        .updateTable('metadata_templates')
        .set({
          name: input.name,
          description: input.description,
          ...(input.deleted === undefined ? {} : { deleted: input.deleted }),
          modified_by: user,
          modified_on: now,
        })
        .where('id', '=', templateId)
        .executeTakeFirst();
      if (Number(updated.numUpdatedRows) === 0) throw templateNotFound(id);
      previous = await attributeTree(trx, templateId);
      await trx
        .deleteFrom('metadata_template_attrs')
        .where('template_id', '=', templateId)
        .execute();
      for (const part of chunks(previous))
        await trx.deleteFrom('metadata_attr_attrs').where('parent_id', 'in', part).execute();
    }
    const writing: Writing = {
      trx,
      user,
      now,
      typeIds: await valueTypeIds(trx),
      reusable: new Set(previous),
    };
    for (const [order, attribute] of input.attributes.entries()) {
      const attributeId = await writeAttribute(writing, attribute);
      await trx
        .insertInto('metadata_template_attrs')
        .values({ template_id: templateId, attribute_id: attributeId, display_order: order })
        .execute();
    }
    // What is left of the old tree was dropped from the template.
    for (const part of chunks([...writing.reusable]))
      await trx.deleteFrom('metadata_attributes').where('id', 'in', part).execute();
    return templateId;
  });
}

/** Marks a template deleted (it leaves the listing, stays readable by id), or removes it and its attributes. */
export async function deleteTemplate(
  db: Kysely<Database>,
  user: string,
  now: number,
  id: string,
  permanent: boolean,
): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const templateId = id.toLowerCase();
    const existing = await trx
      .selectFrom('metadata_templates')
      .select('id')
      .where('id', '=', templateId)
      .executeTakeFirst();
    if (!existing) throw templateNotFound(id);
    if (!permanent) {
      await trx
        .updateTable('metadata_templates')
        .set({ deleted: true, modified_by: user, modified_on: now })
        .where('id', '=', templateId)
        .execute();
      return;
    }
    const attributes = await attributeTree(trx, templateId);
    await trx.deleteFrom('metadata_templates').where('id', '=', templateId).execute();
    for (const part of chunks(attributes))
      await trx.deleteFrom('metadata_attributes').where('id', 'in', part).execute();
  });
}
