import { randomUUID } from 'node:crypto';
import { joinDataPath } from '../../common/data-path.ts';
import type { DataStore } from './store.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Request helpers shared by the bulk data-info routes (moves, deletes, tickets, sharing): lists of
 * paths with the bulk limit (backends.md §2), boolean query values. The caller is the DataStore's
 * (callerOf, writerOf).
 */

/** backends.md §2: bulk routes reject more than this many paths. */
export const MAX_BULK_PATHS = 1000;

/** The JSON object body, or 400 ERR_BAD_OR_MISSING_FIELD. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the body must be a JSON object', {});
  }
  return body as Record<string, unknown>;
}

/** A list of strings in `field` (non-empty unless `allowEmpty`), at most MAX_BULK_PATHS long. */
export function stringList(value: unknown, field: string, allowEmpty = false): string[] {
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `body field "${field}" must be a list of strings`,
      { field },
    );
  }
  if (value.length === 0 && !allowEmpty)
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `body field "${field}" must not be empty`, {
      field,
    });
  if (value.length > MAX_BULK_PATHS) {
    throw gatewayError(
      'ERR_TOO_MANY_RESULTS',
      `at most ${MAX_BULK_PATHS} entries are accepted in "${field}"`,
      { count: value.length, limit: MAX_BULK_PATHS },
    );
  }
  return value as string[];
}

/** Canonical paths from `body[field]`, duplicates dropped, order kept. */
export function pathList(
  data: DataStore,
  body: unknown,
  field = 'paths',
  allowEmpty = false,
): string[] {
  const paths = stringList(bodyObject(body)[field], field, allowEmpty).map((path) =>
    data.path(path, field),
  );
  return [...new Set(paths)];
}

/** One string body field. */
export function stringField(body: unknown, field: string): string {
  const value = bodyObject(body)[field];
  if (typeof value !== 'string')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `body field "${field}" must be a string`, {
      field,
    });
  return value;
}

/** A boolean query parameter: `true`/`1`/`false`/`0` (any case); absent gives `fallback`, or 400 when required; empty is false. */
export function booleanParam(query: unknown, name: string, fallback?: boolean): boolean {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined) {
    if (fallback === undefined)
      throw gatewayError('ERR_MISSING_QUERY_PARAMETER', `missing query parameter "${name}"`, {
        field: name,
      });
    return fallback;
  }
  if (value === '') return fallback ?? false; // `?public=` is present, and says nothing true
  const text = String(value).toLowerCase();
  if (text === 'true' || text === '1') return true;
  if (text === 'false' || text === '0') return false;
  throw gatewayError('ERR_BAD_QUERY_PARAMETER', `query parameter "${name}" must be true or false`, {
    field: name,
  });
}

/** A positive integer query parameter, or undefined when absent. */
export function integerParam(query: unknown, name: string, minimum = 0): number | undefined {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  if (value === undefined || value === '') return undefined;
  const text = String(value);
  if (!/^\d{1,15}$/.test(text) || Number(text) < minimum) {
    throw gatewayError(
      'ERR_BAD_QUERY_PARAMETER',
      `query parameter "${name}" must be an integer of at least ${minimum}`,
      { field: name },
    );
  }
  return Number(text);
}

/** A string query parameter (the last one when repeated). */
export function stringParam(query: unknown, name: string): string | undefined {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  const value = Array.isArray(raw) ? raw[raw.length - 1] : raw;
  return value === undefined ? undefined : String(value);
}

/** Every value of a repeatable query parameter. */
export function repeatedParam(query: unknown, name: string): string[] {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String).filter((value) => value !== '');
}

/** backends.md §2: names of new objects must not contain the data store's bad characters. */
const BAD_NAME_CHARACTERS = ['`', "'"];

/** `parent/<name>` for a client-chosen new name: the path rules plus the bad-character policy. */
export function newChildPath(parent: string, name: unknown, field: string): string {
  const path = joinDataPath(parent, name, field);
  const bad = BAD_NAME_CHARACTERS.find((character) => (name as string).includes(character));
  if (bad)
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `${field} must not contain the character ${bad}`,
      { field, name },
    );
  return path;
}

/** Operations finish synchronously, but the contract carries a task id (backends.md §2.5). */
export function asyncTaskId(): string {
  return randomUUID();
}

/** What an operation did, in the terms of a `data` notification (backends.md §2.5; sent by notifications.ts). */
export interface DataEvent {
  action: 'move' | 'rename' | 'trash' | 'delete' | 'restore' | 'empty_trash';
  user: string;
  paths: string[];
  dest?: string;
}
