// Query strings as clients really send them: names in any case, parameters repeated.
import type { FastifyRequest } from 'fastify';
import { gatewayError } from '../common/errors.js';

/**
 * Query names arrive in any case (`sortField`, `SORT-COL`; routes.md §1.5): lower-cases them and
 * collapses identical repeats of single-valued parameters; different repeats are a 409
 * (clients.md §3.3). Meant for a `preValidation` hook, so the schema sees the result.
 */
export function normalizeQuery(
  raw: unknown,
  repeatable: readonly string[] = [],
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries((raw ?? {}) as Record<string, string | string[]>)) {
    const key = name.toLowerCase();
    const values = [
      ...(Array.isArray(result[key])
        ? (result[key] as string[])
        : result[key] !== undefined
          ? [result[key] as string]
          : []),
      ...(Array.isArray(value) ? value : [value]),
    ];
    result[key] = values.length === 1 ? values[0]! : values;
  }
  for (const [key, value] of Object.entries(result)) {
    if (!Array.isArray(value) || repeatable.includes(key)) continue;
    if (new Set(value).size > 1) {
      throw gatewayError(
        'ERR_CONFLICTING_QUERY_PARAMETER_VALUES',
        `query parameter "${key}" was given different values`,
        { field: key },
      );
    }
    result[key] = value[0]!;
  }
  for (const key of repeatable) {
    const value = result[key];
    if (value !== undefined && !Array.isArray(value)) result[key] = [value];
  }
  return result;
}

/** A `preValidation` hook applying `normalizeQuery`. */
export function queryNormalizer(repeatable: readonly string[] = []) {
  return async (request: FastifyRequest) => {
    request.query = normalizeQuery(request.query, repeatable);
  };
}
