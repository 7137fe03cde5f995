import { valueTypeNames } from '../../store/migrations/006-metadata-templates-pids.ts';
import { isJsonObject } from '../../common/request-body.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * The admin template body (backends.md §3.5): `{name, description?, deleted?, attributes: [{id?,
 * name, description, type, required?, values?: [{value, is_default?}], settings?, attributes?}]}`,
 * checked whole before anything is written. Clients send back a template they fetched, so fields
 * this service writes itself (`created_by`, `modified_on`, enum value ids, …) are ignored.
 */

/**
 * The value types are the rows of `metadata_value_types`, which migration 006 seeds from its own
 * frozen list; a later migration that seeds another type adds its list here.
 */
export const valueTypes = valueTypeNames;

export type ValueType = (typeof valueTypes)[number];

/** `varchar(64)` in the tables. */
export const MAX_NAME_LENGTH = 64;
export const MAX_ENUM_VALUE_LENGTH = 1024;
/** Grouping attributes nest; deeper than this is a mistake, not a template. */
export const MAX_ATTRIBUTE_DEPTH = 5;
/** Every attribute of one template, children included. */
export const MAX_TEMPLATE_ATTRIBUTES = 1000;

export interface EnumValueInput {
  value: string;
  is_default: boolean;
}

export interface AttributeInput {
  /** An attribute of the template being updated keeps its id (and its `created_*`). */
  id?: string;
  name: string;
  description: string;
  type: ValueType;
  required: boolean;
  values: EnumValueInput[];
  /** JSON text, or null. */
  settings: string | null;
  attributes: AttributeInput[];
}

export interface TemplateInput {
  name: string;
  description: string | null;
  deleted?: boolean;
  attributes: AttributeInput[];
}

function bad(field: string, reason: string): Error {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

function name(value: unknown, field: string): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw bad(field, `body field "${field}" must be a non-empty string`);
  if (value.length > MAX_NAME_LENGTH)
    throw bad(field, `body field "${field}" must be at most ${MAX_NAME_LENGTH} characters`);
  return value;
}

function optionalText(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw bad(field, `body field "${field}" must be a string`);
  return value;
}

/** A boolean, also sent as "true"/"false" by some clients; absent gives `fallback`. */
function flag(value: unknown, field: string, fallback: boolean): boolean;
function flag(value: unknown, field: string, fallback?: boolean): boolean | undefined;
function flag(value: unknown, field: string, fallback?: boolean): boolean | undefined {
  if (value === undefined || value === null) return fallback;
  if (typeof value === 'boolean') return value;
  if (value === 'true' || value === 'false') return value === 'true';
  throw bad(field, `body field "${field}" must be true or false`);
}

function valueType(value: unknown, field: string): ValueType {
  const found =
    typeof value === 'string'
      ? valueTypes.find((type) => type.toLowerCase() === value.toLowerCase())
      : undefined;
  if (!found) throw bad(field, `body field "${field}" must be one of ${valueTypes.join(', ')}`);
  return found;
}

function enumValues(value: unknown, field: string, type: ValueType): EnumValueInput[] {
  if (value === undefined || value === null) value = [];
  if (!Array.isArray(value))
    throw bad(field, `body field "${field}" must be a list of {value, is_default?}`);
  if (type !== 'Enum') {
    if (value.length > 0) throw bad(field, `body field "${field}" is only for Enum attributes`);
    return [];
  }
  if (value.length === 0)
    throw bad(field, `an Enum attribute needs at least one value in "${field}"`);
  const seen = new Set<string>();
  const values = value.map((item: unknown, index) => {
    const at = `${field}[${index}]`;
    if (!isJsonObject(item))
      throw bad(at, `body field "${at}" must be an object {value, is_default?}`);
    if (typeof item.value !== 'string' || item.value === '')
      throw bad(`${at}.value`, `body field "${at}.value" must be a non-empty string`);
    if (item.value.length > MAX_ENUM_VALUE_LENGTH)
      throw bad(
        `${at}.value`,
        `body field "${at}.value" must be at most ${MAX_ENUM_VALUE_LENGTH} characters`,
      );
    if (seen.has(item.value))
      throw bad(`${at}.value`, `the value "${item.value}" appears twice in "${field}"`);
    seen.add(item.value);
    return { value: item.value, is_default: flag(item.is_default, `${at}.is_default`, false) };
  });
  if (values.filter((item) => item.is_default).length > 1)
    throw bad(field, `at most one value of "${field}" may be the default`);
  return values;
}

function settings(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (!isJsonObject(value)) throw bad(field, `body field "${field}" must be a JSON object`);
  return JSON.stringify(value);
}

interface Walk {
  count: number;
  ids: Set<string>;
}

function attribute(value: unknown, field: string, depth: number, walk: Walk): AttributeInput {
  if (!isJsonObject(value)) throw bad(field, `body field "${field}" must be an attribute object`);
  walk.count += 1;
  if (walk.count > MAX_TEMPLATE_ATTRIBUTES)
    throw bad(
      field,
      `a template holds at most ${MAX_TEMPLATE_ATTRIBUTES} attributes, children included`,
    );
  const type = valueType(value.type, `${field}.type`);
  const id = typeof value.id === 'string' && value.id !== '' ? value.id.toLowerCase() : undefined;
  if (id !== undefined) {
    if (walk.ids.has(id))
      throw bad(`${field}.id`, `the attribute id ${id} appears twice in the template`);
    walk.ids.add(id);
  }
  const description =
    value.description === undefined || value.description === null ? '' : value.description;
  if (typeof description !== 'string')
    throw bad(`${field}.description`, `body field "${field}.description" must be a string`);
  const children =
    value.attributes === undefined || value.attributes === null ? [] : value.attributes;
  if (!Array.isArray(children))
    throw bad(
      `${field}.attributes`,
      `body field "${field}.attributes" must be a list of attributes`,
    );
  if (children.length > 0 && type !== 'Grouping')
    throw bad(
      `${field}.attributes`,
      `only Grouping attributes have child attributes ("${field}.attributes")`,
    );
  if (children.length > 0 && depth >= MAX_ATTRIBUTE_DEPTH)
    throw bad(`${field}.attributes`, `attributes nest at most ${MAX_ATTRIBUTE_DEPTH} levels deep`);
  return {
    ...(id === undefined ? {} : { id }),
    name: name(value.name, `${field}.name`),
    description,
    type,
    required: flag(value.required, `${field}.required`, false),
    values: enumValues(value.values, `${field}.values`, type),
    settings: settings(value.settings, `${field}.settings`),
    attributes: children.map((child: unknown, index) =>
      attribute(child, `${field}.attributes[${index}]`, depth + 1, walk),
    ),
  };
}

/** The checked template body, or 400 ERR_BAD_OR_MISSING_FIELD naming the first field at fault. */
export function templateInput(body: unknown): TemplateInput {
  if (!isJsonObject(body))
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      'the body must be a JSON object {name, description?, deleted?, attributes}',
    );
  const attributes =
    body.attributes === undefined || body.attributes === null ? [] : body.attributes;
  if (!Array.isArray(attributes))
    throw bad('attributes', 'body field "attributes" must be a list of attributes');
  const walk: Walk = { count: 0, ids: new Set() };
  const deleted = flag(body.deleted, 'deleted');
  return {
    name: name(body.name, 'name'),
    description: optionalText(body.description, 'description'),
    ...(deleted === undefined ? {} : { deleted }),
    attributes: attributes.map((item: unknown, index) =>
      attribute(item, `attributes[${index}]`, 1, walk),
    ),
  };
}
