import { Type } from 'typebox';
import { bodyObject, isUuid, userOf, userQuery, type MetadataRoutes } from './requests.ts';
import { listParam, singleParam } from '../../common/query-params.ts';
import {
  changeRequestStatus,
  createRequest,
  listRequests,
  listRequestTypes,
  listStatusCodes,
  requireRequest,
  sortFields,
  type ListingOptions,
  type NewRequest,
  type SortField,
  type StatusChange,
} from './permanent-id-model.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Permanent-ID requests (backends.md §3.7): users file and follow their own requests; admins list
 * everyone's and move them through statuses. Moving data, sharing it with curators, minting and
 * notifying are the gateway's (routes.md §14), which calls `changeRequestStatus` through the
 * status route.
 */

const requestParams = Type.Object({ requestId: Type.String({ minLength: 1 }) });

/** An integer query parameter of at least 0, or undefined. */
function countParam(query: unknown, name: string): number | undefined {
  const value = singleParam(query, name);
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,15}$/.test(value))
    throw gatewayError(
      'ERR_BAD_QUERY_PARAMETER',
      `query parameter "${name}" must be a whole number of at least 0`,
      { field: name },
    );
  return Number(value);
}

/** `statuses` (repeatable), `limit`, `offset`, `sort-field`, `sort-dir` (names and values in any letter case). */
function listingOptions(query: unknown): Omit<ListingOptions, 'requestedBy'> {
  const rawField = singleParam(query, 'sort-field');
  let sortField: SortField = 'date_submitted';
  if (rawField !== undefined && rawField !== '') {
    const found = sortFields.find((field) => field === rawField.toLowerCase().replace(/-/g, '_'));
    if (!found)
      throw gatewayError(
        'ERR_BAD_QUERY_PARAMETER',
        `query parameter "sort-field" must be one of ${sortFields.join(', ')}`,
        { field: 'sort-field' },
      );
    sortField = found;
  }
  const rawDir = singleParam(query, 'sort-dir');
  // The reference default is date_submitted DESC; a chosen field sorts ascending unless told.
  let sortDir: 'asc' | 'desc' = rawField === undefined || rawField === '' ? 'desc' : 'asc';
  if (rawDir !== undefined && rawDir !== '') {
    const dir = rawDir.toLowerCase();
    if (dir !== 'asc' && dir !== 'desc')
      throw gatewayError(
        'ERR_BAD_QUERY_PARAMETER',
        'query parameter "sort-dir" must be ASC or DESC',
        { field: 'sort-dir' },
      );
    sortDir = dir;
  }
  const statuses = listParam(query, 'statuses')
    .map((value) => value.trim())
    .filter((value) => value !== '');
  return {
    statuses,
    sortField,
    sortDir,
    limit: countParam(query, 'limit'),
    offset: countParam(query, 'offset') ?? 0,
  };
}

function bad(field: string, reason: string): Error {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

function optionalString(body: Record<string, unknown>, field: string): string | null {
  const value = body[field];
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw bad(field, `body field "${field}" must be a string`);
  return value;
}

/** `{type, target_id, target_type: "file"|"folder", original_path?, permanent_id?}`. */
function newRequest(body: unknown): NewRequest {
  const object = bodyObject(body);
  if (typeof object.type !== 'string' || object.type === '')
    throw bad('type', 'body field "type" must be a request type such as "DOI"');
  if (!isUuid(object.target_id)) throw bad('target_id', 'body field "target_id" must be a UUID');
  const targetType =
    typeof object.target_type === 'string' ? object.target_type.toLowerCase() : undefined;
  if (targetType !== 'file' && targetType !== 'folder')
    throw bad('target_type', 'body field "target_type" must be "file" or "folder"');
  const permanentId = optionalString(object, 'permanent_id');
  return {
    type: object.type,
    targetId: object.target_id,
    targetType,
    originalPath: optionalString(object, 'original_path'),
    permanentId: permanentId === '' ? null : permanentId,
  };
}

/** `{status?, comments?, permanent_id?}`; `{}` (or no body) repeats the latest status. */
function statusChange(body: unknown): StatusChange {
  const object = body === undefined || body === null || body === '' ? {} : bodyObject(body);
  const status = optionalString(object, 'status');
  if (status !== null && (status.trim() === '' || status.length > 64))
    throw bad('status', 'body field "status" must be a status name of 1 to 64 characters');
  const permanentId = optionalString(object, 'permanent_id');
  if (permanentId !== null && permanentId.trim() === '')
    throw bad('permanent_id', 'body field "permanent_id" must not be empty');
  return {
    ...(status === null ? {} : { status: status.trim() }),
    comments: optionalString(object, 'comments'),
    ...(permanentId === null ? {} : { permanentId }),
  };
}

export const permanentIdRequestRoutes: MetadataRoutes = async (app, { db, now }) => {
  app.get('/permanent-id-requests', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    return listRequests(db, { ...listingOptions(request.query), requestedBy: user });
  });

  app.post('/permanent-id-requests', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    return createRequest(db, user, now(), newRequest(request.body));
  });

  app.get(
    '/permanent-id-requests/status-codes',
    { schema: { querystring: userQuery } },
    async (request) => {
      userOf(request);
      return { status_codes: await listStatusCodes(db) };
    },
  );

  app.get(
    '/permanent-id-requests/types',
    { schema: { querystring: userQuery } },
    async (request) => {
      userOf(request);
      return { request_types: await listRequestTypes(db) };
    },
  );

  app.get(
    '/permanent-id-requests/:requestId',
    { schema: { querystring: userQuery, params: requestParams } },
    async (request) => {
      const user = userOf(request);
      return requireRequest(db, (request.params as { requestId: string }).requestId, user);
    },
  );

  app.get(
    '/admin/permanent-id-requests',
    { schema: { querystring: userQuery } },
    async (request) => {
      userOf(request);
      return listRequests(db, listingOptions(request.query));
    },
  );

  app.get(
    '/admin/permanent-id-requests/:requestId',
    { schema: { querystring: userQuery, params: requestParams } },
    async (request) => {
      userOf(request);
      return requireRequest(db, (request.params as { requestId: string }).requestId);
    },
  );

  app.post(
    '/admin/permanent-id-requests/:requestId/status',
    { schema: { querystring: userQuery, params: requestParams } },
    async (request) => {
      const user = userOf(request);
      return changeRequestStatus(
        db,
        (request.params as { requestId: string }).requestId,
        user,
        now(),
        statusChange(request.body),
      );
    },
  );
};
