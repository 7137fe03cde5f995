import { gatewayError, type GatewayError } from '../../common/errors.ts';

/**
 * Reading a clause's `args` (and the request's own fields): each refusal is a 400
 * ERR_BAD_OR_MISSING_FIELD naming the field by its place in the body (`query.all[0].args.label`).
 */
export type Args = Record<string, unknown>;

export function badField(field: string, problem: string, value?: unknown): GatewayError {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', `${field} ${problem}`, {
    field,
    ...(value === undefined ? {} : { value }),
  });
}

export function optionalString(args: Args, name: string, at: string): string | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string') throw badField(`${at}.${name}`, 'must be a string', value);
  return value;
}

export function requiredString(args: Args, name: string, at: string): string {
  const value = optionalString(args, name, at);
  if (value === undefined || value.trim() === '')
    throw badField(`${at}.${name}`, 'is required', args[name]);
  return value;
}

export function flag(args: Args, name: string, at: string): boolean {
  const value = args[name];
  if (value === undefined || value === null) return false;
  if (typeof value !== 'boolean') throw badField(`${at}.${name}`, 'must be true or false', value);
  return value;
}

/** A list of non-empty strings; a single string counts as a list of one. */
export function stringList(args: Args, name: string, at: string): string[] {
  const value = args[name];
  if (value === undefined || value === null) return [];
  const list = Array.isArray(value) ? value : [value];
  for (const item of list)
    if (typeof item !== 'string' || item === '')
      throw badField(`${at}.${name}`, 'must be a list of strings', value);
  return list as string[];
}

/** A string or number bound of a range (`from`, `to`), read by `parse`; undefined when absent. */
export function bound<T>(
  args: Args,
  name: string,
  at: string,
  parse: (text: string) => T | undefined,
  expected: string,
): T | undefined {
  const value = args[name];
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value !== 'string' && typeof value !== 'number')
    throw badField(`${at}.${name}`, `must be ${expected}`, value);
  const parsed = parse(String(value).trim());
  if (parsed === undefined) throw badField(`${at}.${name}`, `must be ${expected}`, value);
  return parsed;
}

/** Milliseconds since the epoch, as digits, `YYYY-MM-DD` (midnight UTC) or an ISO date-time with a zone. */
export function parseDate(text: string): number | undefined {
  if (/^-?\d+$/.test(text)) return Number.isSafeInteger(Number(text)) ? Number(text) : undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(text)) text = `${text}T00:00:00Z`;
  else if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text))
    return undefined;
  const ms = Date.parse(text);
  return Number.isNaN(ms) ? undefined : ms;
}

const units: Record<string, number> = {
  '': 1,
  B: 1,
  KB: 1024,
  MB: 1024 ** 2,
  GB: 1024 ** 3,
  TB: 1024 ** 4,
};

/** Bytes, as a number or a number and a unit (`10 KB`; KB, MB, GB, TB are powers of 1024). */
export function parseSize(text: string): number | undefined {
  const match = /^(\d+(?:\.\d+)?)\s*([a-zA-Z]*)$/.exec(text);
  if (!match) return undefined;
  const unit = units[match[2]!.toUpperCase()];
  if (unit === undefined) return undefined;
  const bytes = Math.floor(Number(match[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}
