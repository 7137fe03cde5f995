// Query parameters as clients really send them and as the gateway and the embedded backends read
// them: names in any case, one value (a repeat with another value is a 409), choices and booleans
// in any letter case, counts, repeatable lists.
import type { FastifyRequest } from 'fastify';
import { type GatewayError, gatewayError } from './errors.ts';

/** 400 ERR_BAD_QUERY_PARAMETER naming the parameter. */
export function badQueryParam(
  field: string,
  reason: string,
  extra: Record<string, unknown> = {},
): GatewayError {
  return gatewayError('ERR_BAD_QUERY_PARAMETER', reason, { field, ...extra });
}

/**
 * The one value of a query parameter. A parameter repeated with the same value counts once; with
 * different values it is 409 ERR_CONFLICTING_QUERY_PARAMETER_VALUES (spec "Errors" 5).
 */
export function singleParam(query: unknown, name: string): string | undefined {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  if (raw === undefined) return undefined;
  const values = (Array.isArray(raw) ? raw : [raw]).map(String);
  if (new Set(values).size > 1) {
    throw gatewayError(
      'ERR_CONFLICTING_QUERY_PARAMETER_VALUES',
      `query parameter "${name}" was given different values`,
      { field: name, values },
    );
  }
  return values[0];
}

export function requiredParam(query: unknown, name: string): string {
  const value = singleParam(query, name);
  if (value === undefined || value === '')
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', `missing query parameter "${name}"`, {
      field: name,
    });
  return value;
}

/** A query parameter that must be one of `allowed` (any letter case); answers the lower-case value. */
export function choiceParam<T extends string>(
  query: unknown,
  name: string,
  allowed: readonly T[],
  fallback?: T,
): T {
  const raw =
    fallback === undefined ? requiredParam(query, name) : (singleParam(query, name) ?? fallback);
  const value = raw.toLowerCase() as T;
  if (!allowed.includes(value)) {
    throw badQueryParam(name, `query parameter "${name}" must be one of ${allowed.join(', ')}`, {
      value: raw,
    });
  }
  return value;
}

/** `true` or `false` (any letter case); undefined when absent or empty. */
export function optionalBooleanParam(query: unknown, name: string): boolean | undefined {
  const raw = singleParam(query, name);
  if (raw === undefined || raw === '') return undefined;
  const value = raw.toLowerCase();
  if (value !== 'true' && value !== 'false')
    throw badQueryParam(name, `query parameter "${name}" must be true or false`);
  return value === 'true';
}

/** `true` or `false` (any letter case); required unless there is a `fallback` (taken when absent or empty). */
export function booleanParam(query: unknown, name: string, fallback?: boolean): boolean {
  if (fallback === undefined) requiredParam(query, name);
  return optionalBooleanParam(query, name) ?? fallback!;
}

/** Every value of a repeatable query parameter. */
export function listParam(query: unknown, name: string): string[] {
  const raw = (query as Record<string, unknown> | undefined)?.[name];
  if (raw === undefined) return [];
  return (Array.isArray(raw) ? raw : [raw]).map(String);
}

/** A whole number of at least 0 (a count, a limit, an offset); `fallback` when absent or empty. */
export function countParam(query: unknown, name: string, fallback: number): number {
  const value = singleParam(query, name);
  if (value === undefined || value === '') return fallback;
  if (!/^\d{1,9}$/.test(value))
    throw badQueryParam(name, `query parameter "${name}" must be a whole number of at least 0`);
  return Number(value);
}

/** The `user` query parameter every identity-taking backend route requires. */
export function requireUserParam(query: unknown): string {
  const user = (query as { user?: unknown } | undefined)?.user;
  if (typeof user !== 'string' || user === '') {
    throw gatewayError('ERR_MISSING_QUERY_PARAMETER', 'missing query parameter "user"', {
      field: 'user',
    });
  }
  return user;
}

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
