import { GatewayError, gatewayError } from '../../common/errors.ts';

/**
 * Reading data-info query parameters the way its callers send them (clients.md §3): names in any
 * letter case, numbers as strings, list parameters repeated (`info-type=a&info-type=b`), single
 * parameters repeated harmlessly with one value. Every refusal is a 400 naming the parameter.
 */
export type Query = Record<string, unknown>;

/** Every value given for `name` (compared case-insensitively), in order. */
export function valuesOf(query: unknown, name: string): string[] {
  if (typeof query !== 'object' || query === null) return [];
  const wanted = name.toLowerCase();
  const values: string[] = [];
  for (const [key, value] of Object.entries(query as Query)) {
    if (key.toLowerCase() !== wanted) continue;
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string') values.push(item);
    }
  }
  return values;
}

/** A single-valued parameter; repeats must agree (409 ERR_CONFLICTING_QUERY_PARAMETER_VALUES otherwise). */
export function single(query: unknown, name: string): string | undefined {
  const values = valuesOf(query, name);
  if (values.length === 0) return undefined;
  if (values.some((value) => value !== values[0])) {
    throw gatewayError(
      'ERR_CONFLICTING_QUERY_PARAMETER_VALUES',
      `query parameter "${name}" was given different values`,
      {
        field: name,
        values,
      },
    );
  }
  return values[0];
}

/** The first of several accepted spellings that is present (`sort-field` / `sort-col`). */
export function singleOf(query: unknown, names: string[]): string | undefined {
  for (const name of names) {
    const value = single(query, name);
    if (value !== undefined) return value;
  }
  return undefined;
}

export function badParameter(name: string, problem: string, value?: unknown): GatewayError {
  return gatewayError('ERR_BAD_QUERY_PARAMETER', `query parameter "${name}" ${problem}`, {
    field: name,
    ...(value === undefined ? {} : { value }),
  });
}

export function missingParameter(name: string): GatewayError {
  return gatewayError('ERR_MISSING_QUERY_PARAMETER', `missing query parameter "${name}"`, {
    field: name,
  });
}

/** An integer parameter in [min, max], given as digits ("10"); undefined when absent or empty. */
export function integerParam(
  query: unknown,
  name: string,
  min: number,
  max: number,
): number | undefined {
  const raw = single(query, name);
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (!/^[+-]?\d+$/.test(text)) throw badParameter(name, 'must be an integer', raw);
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < min || value > max)
    throw badParameter(name, `must be an integer from ${min} to ${max}`, raw);
  return value;
}

/** `true`/`1`/`yes` or `false`/`0`/`no` (any case); an empty value counts as true (`?attachment`). */
export function booleanParam(query: unknown, name: string, fallback = false): boolean {
  const raw = single(query, name);
  if (raw === undefined) return fallback;
  const text = raw.trim().toLowerCase();
  if (text === '' || text === 'true' || text === '1' || text === 'yes') return true;
  if (text === 'false' || text === '0' || text === 'no') return false;
  throw badParameter(name, 'must be true or false', raw);
}

/** One of `allowed` (compared case-insensitively), answered in the spelling of `allowed`. */
export function choiceParam<T extends string>(
  query: unknown,
  names: string | string[],
  allowed: readonly T[],
  fallback: T,
): T {
  const list = Array.isArray(names) ? names : [names];
  const raw = singleOf(query, list);
  if (raw === undefined || raw.trim() === '') return fallback;
  const found = allowed.find((choice) => choice.toLowerCase() === raw.trim().toLowerCase());
  if (!found) throw badParameter(list[0]!, `must be one of ${allowed.join(', ')}`, raw);
  return found;
}

/** A comma-separated list parameter (`filter-include=id,path`), repeats merged; empty items dropped. */
export function commaListParam(query: unknown, name: string): string[] {
  return valuesOf(query, name)
    .flatMap((value) => value.split(','))
    .map((item) => item.trim())
    .filter((item) => item !== '');
}
