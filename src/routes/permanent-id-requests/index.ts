// Tags: permanent-id-requests, admin-permanent-id-requests. routes.md §14: users ask for a
// permanent identifier (DOI, ARK) for a folder they own; administrators move the request through
// statuses and complete it by minting the identifier (provider.ts), which is then written on
// the folder as AVUs. The metadata service keeps the requests and their status history; every
// status change is notified to the requester. Requests show their folder as a data-info stat
// (one batched call per listing) in place of `target_id`.
//
// Not done here (routes.md's full flow): moving the folder into a curators' staging folder and
// then a publish folder, sharing it with a curators group, and e-mails. The folder stays where it
// is, owned by the requester; curators reach it through the admin routes.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { isUuid } from '../../common/ids.ts';
import type { RequestDetails, RequestListing } from '../../common/permanent-id-requests.ts';
import type { GatewayConfig } from '../../config/index.ts';
import type { Identity } from '../../common/identity.ts';
import { sendNotification } from '../../http/notifications.ts';
import { documentedNotEnforced, routeSecurity, takesNoBody } from '../../http/openapi.ts';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { readableStats } from '../../clients/data-info.ts';
import { metadataJson } from '../../clients/metadata.ts';
import { dataCiteXml, publicationYear, type Avu } from './datacite.ts';
import {
  candidateIdentifier,
  configuredMinter,
  type Minted,
  type PidMinter,
  type PidType,
} from './provider.ts';
import { gatewayError } from '../../common/errors.ts';

/** Served as they are by the metadata service. */
export const permanentIdRequestPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/permanent-id-requests/status-codes',
    backend: 'metadata',
    tag: 'permanent-id-requests',
    summary: 'List permanent-ID request status codes',
  },
  {
    method: 'GET',
    path: '/permanent-id-requests/types',
    backend: 'metadata',
    tag: 'permanent-id-requests',
    summary: 'List permanent-ID request types',
  },
];

export interface PermanentIdDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
  /** Defaults to the deployment's minter (PIDPROVIDER_URL set or not). */
  minter?: PidMinter;
}

/** backends.md §3.7 Details and Listing, as metadata answers them (the embedded service's own types). */
type Details = RequestDetails;
type Listing = RequestListing;

/** data-info's stat (backends.md §2.2), the keys read here. */
interface Stat {
  id: string;
  path: string;
  type: 'file' | 'dir';
  label: string;
  permission: string;
  'file-count'?: number;
  'dir-count'?: number;
  [key: string]: unknown;
}

const notificationType = 'permanent_id_request';

const StatObject = Type.Union(
  [
    Type.Object(
      {},
      {
        additionalProperties: true,
        description: 'data-info stat of the folder (backends.md §2.2)',
      },
    ),
    Type.Null(),
  ],
  {
    description: 'The folder as the requester sees it; null when it no longer exists',
  },
);
const HistoryEntry = Type.Object(
  {
    status: Type.String(),
    comments: Type.Optional(Type.String()),
    status_date: Type.Number({ description: 'ms since the epoch' }),
    updated_by: Type.String(),
  },
  { additionalProperties: true },
);
const DetailsSchema = Type.Object(
  {
    id: Type.String({ format: 'uuid' }),
    type: Type.String({ description: 'DOI or ARK' }),
    folder: StatObject,
    target_type: Type.String(),
    requested_by: Type.String(),
    original_path: Type.Optional(Type.String()),
    permanent_id: Type.Optional(Type.String()),
    history: Type.Array(HistoryEntry, { description: 'Oldest first' }),
  },
  { additionalProperties: true },
);
const ListingSchema = Type.Object({
  requests: Type.Array(
    Type.Object(
      {
        id: Type.String(),
        type: Type.String(),
        folder: StatObject,
        requested_by: Type.String(),
        date_submitted: Type.Number(),
        status: Type.String(),
        date_updated: Type.Number(),
        updated_by: Type.String(),
      },
      { additionalProperties: true },
    ),
  ),
  total: Type.Integer(),
});
const ListingQuery = Type.Object(
  {
    statuses: Type.Optional(
      Type.Array(Type.String(), {
        description: 'Only requests whose latest status is one of these; repeatable',
      }),
    ),
    limit: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    offset: Type.Optional(Type.String({ pattern: '^[0-9]+$' })),
    'sort-field': Type.Optional(
      Type.String({
        description:
          'type, target_type, requested_by, date_submitted (default), status, date_updated or updated_by',
      }),
    ),
    'sort-dir': Type.Optional(
      Type.String({ description: 'ASC or DESC (default DESC for the default field, else ASC)' }),
    ),
  },
  { additionalProperties: true },
);
const CreateBody = Type.Object({
  type: Type.String({ minLength: 1, description: 'A request type: DOI or ARK' }),
  folder: Type.String({ description: 'UUID of a non-empty folder the caller owns' }),
});
const StatusBody = Type.Object(
  {
    status: Type.Optional(
      Type.String({ description: 'New status name; absent repeats the latest one' }),
    ),
    comments: Type.Optional(Type.String()),
    permanent_id: Type.Optional(
      Type.String({
        description: 'The identifier, when recorded by hand; a request keeps its first one',
      }),
    ),
  },
  { additionalProperties: false },
);
const RequestParams = Type.Object({
  requestId: Type.String({ description: 'Permanent-ID request UUID' }),
});
const CompletionSchema = Type.Intersect([
  DetailsSchema,
  Type.Object({
    provider: Type.String({
      description:
        '`embedded` (minted by the gateway under PID_PREFIX, not registered) or `http` (PIDPROVIDER_URL)',
    }),
    note: Type.Optional(Type.String()),
  }),
]);

const asUser = (username: string): Identity => ({ username, roles: [], groups: [] });

/** The stats of the ids `user` can read (one data-info call for any ordinary listing). */
function stats(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  user: Identity | undefined,
  ids: string[],
): Promise<Map<string, Stat>> {
  return readableStats<Stat>(
    { forwarder: deps.forwarder, identity: user, requestId: request.id },
    ids,
  );
}

/** The request with its folder's stat in place of `target_id` (null when the folder is gone). */
function withFolder<T extends { target_id: string }>(
  item: T,
  found: Map<string, Stat>,
): Omit<T, 'target_id'> & { folder: Stat | null } {
  const { target_id: targetId, ...rest } = item;
  return { ...rest, folder: found.get(targetId) ?? null };
}

/** A request's folder as its requester sees it. */
async function requesterStats(deps: PermanentIdDeps, request: FastifyRequest, details: Details) {
  return stats(deps, request, asUser(details.requested_by), [details.target_id]);
}

/**
 * Admin listings hold everyone's requests: each folder is stat'ed as its requester (the gateway
 * acts for the requester on their data), one batched call per requester on the page.
 */
async function statsPerRequester(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  items: Listing[],
): Promise<Map<string, Stat>> {
  const byRequester = new Map<string, string[]>();
  for (const item of items)
    byRequester.set(item.requested_by, [
      ...(byRequester.get(item.requested_by) ?? []),
      item.target_id,
    ]);
  const maps = await Promise.all(
    [...byRequester].map(([user, ids]) => stats(deps, request, asUser(user), ids)),
  );
  return new Map(maps.flatMap((map) => [...map]));
}

/** The listing parameters metadata understands, as given (metadata validates them). */
function listingQuery(query: unknown): Record<string, string | string[] | undefined> {
  const given = (query ?? {}) as Record<string, string | string[] | undefined>;
  return Object.fromEntries(
    ['statuses', 'limit', 'offset', 'sort-field', 'sort-dir']
      .filter((key) => given[key] !== undefined)
      .map((key) => [key, given[key]]),
  );
}

const notFound = (id: string) =>
  gatewayError('ERR_NOT_FOUND', 'A Permanent ID Request with this ID was not found.', { id });

function requestIdParam(request: FastifyRequest): string {
  const { requestId } = request.params as { requestId: string };
  if (!isUuid(requestId)) throw notFound(requestId);
  return requestId.toLowerCase();
}

/** Tells the requester where their request stands now (its latest status). Never fails the route. */
async function notifyRequester(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  details: Details,
  action: string,
): Promise<void> {
  const latest = details.history.at(-1);
  const status = latest?.status ?? 'Submitted';
  const where = details.original_path ?? details.target_id;
  const subject =
    action === 'submitted'
      ? `${details.type} request for ${where} submitted`
      : `${details.type} request for ${where}: ${status}`;
  const message = [
    subject,
    details.permanent_id ? `Identifier: ${details.permanent_id}` : undefined,
    latest?.comments,
  ]
    .filter(Boolean)
    .join('. ');
  await sendNotification(
    deps.forwarder,
    {
      type: notificationType,
      user: details.requested_by,
      subject,
      message,
      payload: {
        action: `permanent_id_request_${action}`,
        id: details.id,
        type: details.type,
        status,
        path: where,
        ...(details.permanent_id ? { permanent_id: details.permanent_id } : {}),
        ...(latest?.comments ? { comments: latest.comments } : {}),
      },
    },
    request.log,
    request.id,
  );
}

/** The folder AVUs metadata holds (nested ones included). */
async function folderAvus(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  folderId: string,
): Promise<Avu[]> {
  return (
    (
      await metadataJson<{ avus?: Avu[] }>(deps, request, {
        method: 'GET',
        path: `/avus/folder/${folderId}`,
      })
    )?.avus ?? []
  );
}

const identifierAvu = (avus: Avu[]) =>
  avus.find((avu) => avu.attr.toLowerCase() === 'identifier' && avu.value.trim() !== '');

/** The checks of routes.md §14 create flow: the caller owns it, a folder, with content, no identifier yet. */
async function requestableFolder(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  folderId: string,
): Promise<Stat> {
  const stat = (await stats(deps, request, request.identity, [folderId])).get(folderId);
  if (!stat)
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `no folder with the id ${folderId} is readable by the caller`,
      { folder: folderId },
    );
  if (stat.permission !== 'own')
    throw gatewayError('ERR_NOT_OWNER', `${stat.path} is not owned by the caller`, {
      path: stat.path,
    });
  if (stat.type !== 'dir')
    throw gatewayError(
      'ERR_NOT_A_FOLDER',
      `${stat.path} is a file: permanent identifiers are requested for folders`,
      { path: stat.path },
    );
  if ((stat['file-count'] ?? 0) + (stat['dir-count'] ?? 0) === 0) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      `${stat.path} is empty: a permanent identifier needs data to point at`,
      { field: 'folder', path: stat.path },
    );
  }
  const existing = identifierAvu(await folderAvus(deps, request, folderId));
  if (existing)
    throw gatewayError(
      'ERR_EXISTS',
      `${stat.path} already has a permanent identifier: ${existing.value}`,
      { path: stat.path, identifier: existing.value },
    );
  return stat;
}

interface Submission {
  stat: Stat;
  avus: Avu[];
  xml(identifier: string): string;
  year: string;
}

/** What completing a request submits: the folder (as the requester sees it), its AVUs, the DataCite XML. */
async function submission(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  details: Details,
): Promise<Submission> {
  const stat = (await requesterStats(deps, request, details)).get(details.target_id);
  if (!stat)
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `the folder of this request (${details.original_path ?? details.target_id}) no longer exists`,
      { folder: details.target_id },
    );
  if (stat.type !== 'dir')
    throw gatewayError('ERR_NOT_A_FOLDER', `${stat.path} is not a folder`, { path: stat.path });
  const avus = await folderAvus(deps, request, details.target_id);
  const now = new Date().getUTCFullYear();
  const identifierType = pidType(details.type);
  const xml = (identifier: string) =>
    dataCiteXml({
      identifier,
      identifierType,
      avus,
      folderName: stat.label,
      requester: details.requested_by,
      publisher: deps.config.pid.publisher,
      year: now,
    });
  return { stat, avus, xml, year: publicationYear(avus, now) };
}

function pidType(type: string): PidType {
  const upper = type.toUpperCase();
  if (upper !== 'DOI' && upper !== 'ARK')
    throw gatewayError(
      'ERR_BAD_REQUEST',
      `requests of type ${type} cannot be minted (DOI or ARK only)`,
      { type },
    );
  return upper;
}

/** A status change through metadata (`changeRequestStatus`), as the caller. */
async function changeStatus(
  deps: PermanentIdDeps,
  request: FastifyRequest,
  id: string,
  change: Record<string, unknown>,
): Promise<Details> {
  return metadataJson<Details>(deps, request, {
    method: 'POST',
    path: `/admin/permanent-id-requests/${id}/status`,
    json: change,
  });
}

/**
 * Mints the identifier and records it: AVUs `identifier`, `identifierType`, `publicationYear` on
 * the folder, then status `Completion` with the identifier. Any failure is recorded as `Failed`
 * (with the reason, and the identifier if one was minted) and answered as the error.
 */
async function complete(
  deps: PermanentIdDeps,
  minter: PidMinter,
  request: FastifyRequest,
  details: Details,
) {
  if (details.permanent_id)
    throw gatewayError(
      'ERR_EXISTS',
      `this request already has the identifier ${details.permanent_id}`,
      { identifier: details.permanent_id },
    );
  let minted: Minted | undefined;
  try {
    const { stat, avus, xml, year } = await submission(deps, request, details);
    if (identifierAvu(avus))
      throw gatewayError(
        'ERR_EXISTS',
        `${stat.path} already has a permanent identifier: ${identifierAvu(avus)!.value}`,
        { path: stat.path },
      );
    const type = pidType(details.type);
    minted = await minter.mint({ type, targetUrl: deps.config.pid.targetBaseUrl + stat.path, xml });
    const written = [
      { attr: 'identifier', value: minted.identifier, unit: '' },
      { attr: 'identifierType', value: type, unit: '' },
      { attr: 'publicationYear', value: year, unit: '' },
    ];
    await metadataJson(deps, request, {
      method: 'POST',
      path: `/avus/folder/${details.target_id}`,
      json: { avus: written },
    });
    const comments = `${type} ${minted.identifier} minted${minted.provider === 'embedded' ? ' by the gateway (not registered with a PID provider)' : ''} for ${stat.path}.`;
    const done = await changeStatus(deps, request, details.id, {
      status: 'Completion',
      comments,
      permanent_id: minted.identifier,
    });
    await notifyRequester(deps, request, done, 'status_change');
    return { details: done, minted };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    const comments = `Minting the identifier failed: ${reason}${minted ? ` (minted ${minted.identifier}, not recorded)` : ''}`;
    try {
      const failed = await changeStatus(deps, request, details.id, { status: 'Failed', comments });
      await notifyRequester(deps, request, failed, 'status_change');
    } catch (recording) {
      request.log.error(
        { err: recording, request: details.id },
        'could not record the Failed status of a permanent-ID request',
      );
    }
    throw error;
  }
}

const userOptions = (summary: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'user' as const },
  schema: { tags: ['permanent-id-requests'], summary, security: routeSecurity('user'), ...schema },
});
const adminOptions = (summary: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'admin' as const },
  schema: {
    tags: ['admin-permanent-id-requests'],
    summary,
    security: routeSecurity('admin'),
    ...schema,
  },
});

export async function permanentIdRequestRoutes(
  app: FastifyInstance,
  deps: PermanentIdDeps,
): Promise<void> {
  const minter = deps.minter ?? configuredMinter(deps.config, deps.forwarder);

  // ---- users ----
  app.get('/permanent-id-requests', {
    ...userOptions("List the caller's permanent-ID requests", {
      querystring: ListingQuery,
      response: { 200: ListingSchema },
    }),
    handler: async (request) => {
      const listing = await metadataJson<{ requests: Listing[]; total: number }>(deps, request, {
        method: 'GET',
        path: '/permanent-id-requests',
        query: listingQuery(request.query),
      });
      const found = await stats(
        deps,
        request,
        request.identity,
        listing.requests.map((item) => item.target_id),
      );
      return {
        requests: listing.requests.map((item) => withFolder(item, found)),
        total: listing.total,
      };
    },
  });

  app.post('/permanent-id-requests', {
    ...userOptions('Request a permanent identifier for a folder', {
      description:
        'The folder must exist, be owned by the caller, hold something, and have no `identifier` AVU (404, 403 ERR_NOT_OWNER, 400 ERR_NOT_A_FOLDER / ERR_BAD_OR_MISSING_FIELD / ERR_EXISTS); a second request of the same type for it is 400 ERR_NOT_UNIQUE. The requester is notified (`permanent_id_request`).',
      body: CreateBody,
      response: { 200: DetailsSchema },
    }),
    handler: async (request) => {
      const { type, folder } = request.body as { type: string; folder: string };
      if (!isUuid(folder))
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          'body field "folder" must be a folder UUID',
          { field: 'folder' },
        );
      const folderId = folder.toLowerCase();
      const stat = await requestableFolder(deps, request, folderId);
      const created = await metadataJson<Details>(deps, request, {
        method: 'POST',
        path: '/permanent-id-requests',
        json: { type, target_id: folderId, target_type: 'folder', original_path: stat.path },
      });
      await notifyRequester(deps, request, created, 'submitted');
      return withFolder(created, new Map([[folderId, stat]]));
    },
  });

  app.get('/permanent-id-requests/:requestId', {
    ...userOptions("One of the caller's permanent-ID requests", {
      params: RequestParams,
      response: { 200: DetailsSchema },
    }),
    handler: async (request) => {
      const details = await metadataJson<Details>(deps, request, {
        method: 'GET',
        path: `/permanent-id-requests/${requestIdParam(request)}`,
      });
      return withFolder(details, await stats(deps, request, request.identity, [details.target_id]));
    },
  });

  // ---- administrators ----
  app.get('/admin/permanent-id-requests', {
    ...adminOptions("List every user's permanent-ID requests", {
      querystring: ListingQuery,
      response: { 200: ListingSchema },
    }),
    handler: async (request) => {
      const listing = await metadataJson<{ requests: Listing[]; total: number }>(deps, request, {
        method: 'GET',
        path: '/admin/permanent-id-requests',
        query: listingQuery(request.query),
      });
      const found = await statsPerRequester(deps, request, listing.requests);
      return {
        requests: listing.requests.map((item) => withFolder(item, found)),
        total: listing.total,
      };
    },
  });

  const adminDetails = (request: FastifyRequest) =>
    metadataJson<Details>(deps, request, {
      method: 'GET',
      path: `/admin/permanent-id-requests/${requestIdParam(request)}`,
    });

  app.get('/admin/permanent-id-requests/:requestId', {
    ...adminOptions('One permanent-ID request', {
      params: RequestParams,
      response: { 200: DetailsSchema },
    }),
    handler: async (request) => {
      const details = await adminDetails(request);
      return withFolder(details, await requesterStats(deps, request, details));
    },
  });

  app.post('/admin/permanent-id-requests/:requestId/status', {
    ...adminOptions('Change the status of a permanent-ID request', {
      description:
        'Adds a status to the history (a new name becomes a status code); the requester is notified.',
      params: RequestParams,
      body: StatusBody,
      response: { 200: DetailsSchema },
    }),
    handler: async (request) => {
      const id = requestIdParam(request);
      const changed = await changeStatus(
        deps,
        request,
        id,
        (request.body ?? {}) as Record<string, unknown>,
      );
      await notifyRequester(deps, request, changed, 'status_change');
      return withFolder(changed, await requesterStats(deps, request, changed));
    },
  });

  // `/ezid` is the name the web UI still calls (the provider's former name): the same completion.
  for (const step of ['pidprovider', 'ezid'] as const)
    app.post(`/admin/permanent-id-requests/:requestId/${step}`, {
      ...adminOptions(
        step === 'ezid'
          ? 'Alias of `/pidprovider`: mint the identifier of a permanent-ID request and complete it'
          : 'Mint the identifier of a permanent-ID request and complete it',
        {
          description:
            'Mints the identifier (PIDPROVIDER_URL, or the gateway itself under PID_PREFIX: then `provider` is `embedded` and `note` says so), writes `identifier`, `identifierType` and `publicationYear` AVUs on the folder and records status `Completion`; on any failure records `Failed` and answers the error. The requester is notified. Body ignored.',
          params: RequestParams,
          response: { 200: CompletionSchema },
          ...takesNoBody,
        },
      ),
      handler: async (request) => {
        const details = await adminDetails(request);
        const { details: done, minted } = await complete(deps, minter, request, details);
        return {
          ...withFolder(done, await requesterStats(deps, request, done)),
          provider: minted.provider,
          ...(minted.note ? { note: minted.note } : {}),
        };
      },
    });

  app.get('/admin/permanent-id-requests/:requestId/preview-submission', {
    ...adminOptions('The DataCite XML that completing a permanent-ID request would submit', {
      description:
        'The identifier in it is a placeholder under PID_PREFIX; the real one is chosen when minting.',
      params: RequestParams,
      response: {
        200: {
          description: 'DataCite 4 XML',
          content: { 'application/xml': { schema: { type: 'string' } } },
        },
      },
    }),
    handler: async (request, reply: FastifyReply) => {
      const details = await adminDetails(request);
      const { xml } = await submission(deps, request, details);
      reply.type('application/xml; charset=utf-8');
      return xml(
        details.permanent_id ?? candidateIdentifier(pidType(details.type), deps.config.pid.prefix),
      );
    },
  });
}
