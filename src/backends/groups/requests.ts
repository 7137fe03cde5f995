// What the groups service's routes read from a request: the caller (`user`), JSON bodies, names,
// member lists and boolean flags; bad input is a 400 with the table's code.
import { gatewayError } from '../../common/errors.ts';
import { requireUserParam } from '../../common/query-params.ts';

export const callerOf = (request: { query: unknown }): string => requireUserParam(request.query);

/** The JSON object body (an absent body is an empty object), or 400 ERR_BAD_OR_MISSING_FIELD. */
export function bodyOf(body: unknown): Record<string, unknown> {
  if (body === undefined || body === null) return {};
  if (typeof body !== 'object' || Array.isArray(body))
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the body must be a JSON object');
  return body as Record<string, unknown>;
}

/**
 * A group's own name: non-blank, at most 255 characters, without `:` (it separates the owner)
 * or `/` (it would split the path the name travels in).
 */
export function groupNameField(value: unknown, field = 'name'): string {
  if (typeof value !== 'string' || value.trim() === '')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `"${field}" must be a non-blank string`, {
      field,
    });
  if (value.length > 255 || /[:/]/.test(value))
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `"${field}" must be at most 255 characters, without ":" or "/"`,
      { field },
    );
  return value;
}

export function optionalString(body: Record<string, unknown>, field: string): string | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string')
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `"${field}" must be a string`, { field });
  return value;
}

/** A non-empty list of subject ids (`members`), each a non-blank string, repeats dropped. */
export function subjectList(body: Record<string, unknown>, field = 'members'): string[] {
  const value = body[field];
  if (
    !Array.isArray(value) ||
    value.length === 0 ||
    !value.every((item) => typeof item === 'string' && item.trim() !== '')
  )
    throw gatewayError('ERR_BAD_OR_MISSING_FIELD', `"${field}" must be a list of subject ids`, {
      field,
    });
  return [...new Set(value as string[])];
}

/** A boolean query flag: `true`/`false` in any case, absent is false. */
export function flag(query: unknown, name: string): boolean {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined || value === '') return false;
  if (typeof value === 'string' && /^(true|false)$/i.test(value))
    return value.toLowerCase() === 'true';
  throw gatewayError('ERR_BAD_QUERY_PARAMETER', `"${name}" must be true or false`, {
    parameter: name,
  });
}

/** An optional string query parameter. */
export function queryString(query: unknown, name: string): string | undefined {
  const value = (query as Record<string, unknown> | undefined)?.[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'string')
    throw gatewayError('ERR_BAD_QUERY_PARAMETER', `"${name}" must be given once`, {
      parameter: name,
    });
  return value;
}
