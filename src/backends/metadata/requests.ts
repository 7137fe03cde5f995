import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { Type } from 'typebox';
import type { Database, MetadataTargetType } from '../../store/schema.ts';
import { requireUserParam } from '../../common/query-params.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * What every metadata route module is given, and the request helpers they share: the trusted
 * `user` parameter (a short name, stored verbatim), UUID targets, single-valued query parameters.
 */
export interface MetadataOptions {
  db: Kysely<Database>;
  /** Milliseconds since the epoch. */
  now: () => number;
}

export type MetadataRoutes = FastifyPluginAsync<MetadataOptions>;

export const targetTypes: readonly MetadataTargetType[] = [
  'analysis',
  'app',
  'avu',
  'file',
  'folder',
  'user',
  'quick_launch',
  'instant_launch',
];

const uuidPattern = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/;

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && uuidPattern.test(value);
}

/** A UUID path parameter (schema) — ids are stored in lower case, so any case finds them. */
export const Uuid = Type.String({ pattern: uuidPattern.source });

/** Query schema of routes that take the caller: `user` required, anything else allowed. */
export const userQuery = Type.Object(
  { user: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);

export const userOf = (request: { query: unknown }): string => requireUserParam(request.query);

/** The JSON object body, or 400 ERR_BAD_OR_MISSING_FIELD. */
export function bodyObject(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the body must be a JSON object');
  }
  return body as Record<string, unknown>;
}

/** A list of strings in `body[field]`. */
export function stringList(body: Record<string, unknown>, field: string): string[] {
  const value = body[field];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string')) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `body field "${field}" must be a list of strings`,
      { field },
    );
  }
  return value as string[];
}

/** Splits a long list so an `in (...)` never exceeds either engine's bound-parameter limit. */
export function chunks<T>(items: readonly T[], size = 500): T[][] {
  const parts: T[][] = [];
  for (let start = 0; start < items.length; start += size)
    parts.push(items.slice(start, start + size));
  return parts;
}
