import { randomUUID } from 'node:crypto';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { gatewayError } from '../../common/errors.ts';
import type {
  RequestDetails,
  RequestListing,
  RequestSummary,
} from '../../common/permanent-id-requests.ts';

/**
 * Permanent-ID requests in the store (backends.md §3.7): a request, its type, and its history of
 * statuses. The latest status is the one with the highest `position`; a request's submission date
 * is its first status's date and its update date its latest's.
 *
 * `changeRequestStatus` is the one way a status is added after creation, for the admin route and
 * for the gateway's minting step alike.
 */

type Db = Kysely<Database> | Transaction<Database>;

export const sortFields = [
  'type',
  'target_type',
  'requested_by',
  'date_submitted',
  'status',
  'date_updated',
  'updated_by',
] as const;
export type SortField = (typeof sortFields)[number];

export interface ListingOptions {
  /** Only this user's requests; undefined for the admin listing. */
  requestedBy?: string;
  /** Only requests whose latest status has one of these names. */
  statuses: string[];
  sortField: SortField;
  sortDir: 'asc' | 'desc';
  limit?: number;
  offset: number;
}

export interface NewRequest {
  type: string;
  targetId: string;
  targetType: 'file' | 'folder';
  originalPath: string | null;
  permanentId: string | null;
}

export interface StatusChange {
  /** A status name; absent repeats the latest one. A name not yet known is added to the codes. */
  status?: string;
  comments?: string | null;
  /** The identifier, once minted; a request keeps its first one. */
  permanentId?: string;
}

export function requestNotFound(id: string, user?: string): Error {
  return user === undefined
    ? gatewayError('ERR_NOT_FOUND', 'A Permanent ID Request with this ID was not found.', { id })
    : gatewayError(
        'ERR_NOT_FOUND',
        'A Permanent ID Request with this ID was not found for this user.',
        { id, user },
      );
}

export async function listStatusCodes(db: Db) {
  const rows = await db
    .selectFrom('permanent_id_request_status_codes')
    .select(['id', 'name', 'description'])
    .orderBy('name')
    .execute();
  return rows.map((row) => ({ id: row.id, name: row.name, description: row.description ?? '' }));
}

export async function listRequestTypes(db: Db) {
  const rows = await db
    .selectFrom('permanent_id_request_types')
    .select(['id', 'type', 'description'])
    .orderBy('type')
    .execute();
  return rows.map((row) => ({ id: row.id, type: row.type, description: row.description ?? '' }));
}

/** The request types by canonical name (`DOI`, `ARK`). */
export async function requestTypeByName(
  db: Db,
  name: string,
): Promise<{ id: string; type: string } | undefined> {
  return db
    .selectFrom('permanent_id_request_types')
    .select(['id', 'type'])
    .where(sql<string>`upper(type)`, '=', name.toUpperCase())
    .executeTakeFirst();
}

/** Every request with its type name, first and latest status: the rows the listings filter, sort and page. */
function listingQuery(db: Db) {
  const bounds = db
    .selectFrom('permanent_id_request_statuses')
    .select((eb) => [
      'permanent_id_request as request_id',
      eb.fn.min('position').as('first_position'),
      eb.fn.max('position').as('latest_position'),
    ])
    .groupBy('permanent_id_request')
    .as('b');
  return db
    .selectFrom('permanent_id_requests as r')
    .innerJoin('permanent_id_request_types as t', 't.id', 'r.type')
    .innerJoin(bounds, 'b.request_id', 'r.id')
    .innerJoin('permanent_id_request_statuses as first', (join) =>
      join
        .onRef('first.permanent_id_request', '=', 'r.id')
        .onRef('first.position', '=', 'b.first_position'),
    )
    .innerJoin('permanent_id_request_statuses as latest', (join) =>
      join
        .onRef('latest.permanent_id_request', '=', 'r.id')
        .onRef('latest.position', '=', 'b.latest_position'),
    )
    .innerJoin(
      'permanent_id_request_status_codes as c',
      'c.id',
      'latest.permanent_id_request_status_code',
    );
}

const sortColumns = {
  type: 't.type',
  target_type: 'r.target_type',
  requested_by: 'r.requested_by',
  date_submitted: 'first.date_assigned',
  status: 'c.name',
  date_updated: 'latest.date_assigned',
  updated_by: 'latest.updated_by',
} as const;

/** A request row's summary (the optional path left out when there is none). */
function summaryOf(
  row: Omit<RequestSummary, 'original_path'> & { original_path: string | null },
): RequestSummary {
  return {
    id: row.id,
    type: row.type,
    target_id: row.target_id,
    target_type: row.target_type,
    requested_by: row.requested_by,
    ...(row.original_path === null ? {} : { original_path: row.original_path }),
  };
}

/** One page of requests, sorted and paged in the database, and how many there are in all. */
export async function listRequests(
  db: Db,
  options: ListingOptions,
): Promise<{ requests: RequestListing[]; total: number }> {
  let base = listingQuery(db);
  if (options.requestedBy !== undefined)
    base = base.where('r.requested_by', '=', options.requestedBy);
  if (options.statuses.length > 0) base = base.where('c.name', 'in', options.statuses);
  const counted = await base
    .select((eb) => eb.fn.countAll<number>().as('total'))
    .executeTakeFirst();
  const page = base
    .select([
      'r.id',
      't.type',
      'r.target_id',
      'r.target_type',
      'r.requested_by',
      'r.original_path',
      'first.date_assigned as date_submitted',
      'c.name as status',
      'latest.date_assigned as date_updated',
      'latest.updated_by',
    ])
    .orderBy(sortColumns[options.sortField], options.sortDir)
    .orderBy('r.id', options.sortDir)
    // SQLite takes an OFFSET only after a LIMIT: no limit is the largest one.
    .limit(options.limit ?? Number.MAX_SAFE_INTEGER)
    .offset(options.offset);
  const rows = await page.execute();
  return {
    total: Number(counted?.total ?? 0),
    requests: rows.map((row) => ({
      ...summaryOf(row),
      date_submitted: Number(row.date_submitted),
      status: row.status,
      date_updated: Number(row.date_updated),
      updated_by: row.updated_by,
    })),
  };
}

/** A request with its history (oldest first); only the requester's own when `user` is given. */
export async function findRequest(
  db: Db,
  id: string,
  user?: string,
): Promise<RequestDetails | undefined> {
  let query = db
    .selectFrom('permanent_id_requests as r')
    .innerJoin('permanent_id_request_types as t', 't.id', 'r.type')
    .select([
      'r.id',
      't.type',
      'r.target_id',
      'r.target_type',
      'r.requested_by',
      'r.original_path',
      'r.permanent_id',
    ])
    .where('r.id', '=', id.toLowerCase());
  if (user !== undefined) query = query.where('r.requested_by', '=', user);
  const row = await query.executeTakeFirst();
  if (!row) return undefined;
  const history = await db
    .selectFrom('permanent_id_request_statuses as s')
    .innerJoin(
      'permanent_id_request_status_codes as c',
      'c.id',
      's.permanent_id_request_status_code',
    )
    .select(['c.name', 's.comments', 's.date_assigned', 's.updated_by'])
    .where('s.permanent_id_request', '=', row.id)
    .orderBy('s.position')
    .execute();
  return {
    ...summaryOf(row),
    ...(row.permanent_id === null ? {} : { permanent_id: row.permanent_id }),
    history: history.map((entry) => ({
      status: entry.name,
      ...(entry.comments === null ? {} : { comments: entry.comments }),
      status_date: Number(entry.date_assigned),
      updated_by: entry.updated_by,
    })),
  };
}

export async function requireRequest(db: Db, id: string, user?: string): Promise<RequestDetails> {
  const request = await findRequest(db, id, user);
  if (!request) throw requestNotFound(id, user);
  return request;
}

/** The status code of that name (any letter case), added (description = name) when new. */
async function statusCodeId(trx: Transaction<Database>, name: string): Promise<string> {
  const find = () =>
    trx
      .selectFrom('permanent_id_request_status_codes')
      .select('id')
      .where(sql<string>`lower(name)`, '=', name.toLowerCase())
      .orderBy('name')
      .executeTakeFirst();
  const existing = await find();
  if (existing) return existing.id;
  await trx
    .insertInto('permanent_id_request_status_codes')
    .values({ id: randomUUID(), name, description: name })
    .onConflict((conflict) => conflict.column('name').doNothing())
    .execute();
  return (await find())!.id;
}

async function addStatus(
  trx: Transaction<Database>,
  requestId: string,
  position: number,
  codeId: string,
  user: string,
  now: number,
  comments: string | null,
) {
  await trx
    .insertInto('permanent_id_request_statuses')
    .values({
      id: randomUUID(),
      permanent_id_request: requestId,
      permanent_id_request_status_code: codeId,
      position,
      date_assigned: now,
      updated_by: user,
      comments,
    })
    .execute();
}

/**
 * Files a request with its first status, `Submitted`. A second request of the same type for the
 * same target is 400 ERR_NOT_UNIQUE carrying the existing request (the unique key decides, so two
 * racing submissions cannot both win).
 */
export async function createRequest(
  db: Kysely<Database>,
  user: string,
  now: number,
  input: NewRequest,
): Promise<RequestDetails> {
  const id = await db
    .transaction()
    .execute(async (trx): Promise<{ created: string } | { existing: string }> => {
      const type = await requestTypeByName(trx, input.type);
      if (!type)
        throw gatewayError(
          'ERR_BAD_OR_MISSING_FIELD',
          `body field "type" must be one of the request types`,
          { field: 'type' },
        );
      const requestId = randomUUID();
      const inserted = await trx
        .insertInto('permanent_id_requests')
        .values({
          id: requestId,
          requested_by: user,
          type: type.id,
          target_id: input.targetId.toLowerCase(),
          target_type: input.targetType,
          original_path: input.originalPath,
          permanent_id: input.permanentId,
        })
        .onConflict((conflict) => conflict.columns(['target_id', 'type']).doNothing())
        .executeTakeFirst();
      if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) return { existing: type.id };
      await addStatus(trx, requestId, 1, await statusCodeId(trx, 'Submitted'), user, now, null);
      return { created: requestId };
    });
  if ('created' in id) return requireRequest(db, id.created);
  const existing = await db
    .selectFrom('permanent_id_requests')
    .select('id')
    .where('target_id', '=', input.targetId.toLowerCase())
    .where('type', '=', id.existing)
    .executeTakeFirstOrThrow();
  throw gatewayError(
    'ERR_NOT_UNIQUE',
    'A Permanent ID Request of this type for this item was already submitted.',
    {
      request: await requireRequest(db, existing.id),
    },
  );
}

/**
 * Adds a status to a request's history: 404 when the request is unknown, 424
 * ERR_MISSING_DEPENDENCY when it has no status yet, 400 ERR_EXISTS when `permanentId` is given
 * and the request already has one. Blank comments are stored as none. Answers the details.
 */
export async function changeRequestStatus(
  db: Kysely<Database>,
  requestId: string,
  user: string,
  now: number,
  change: StatusChange,
): Promise<RequestDetails> {
  const id = requestId.toLowerCase();
  await db.transaction().execute(async (trx) => {
    // A no-op update takes the request's row lock on PostgreSQL, so concurrent changes queue up
    // instead of both claiming the next position (SQLite runs one write transaction at a time).
    const locked = await trx
      .updateTable('permanent_id_requests')
      .set({ id })
      .where('id', '=', id)
      .executeTakeFirst();
    if (Number(locked.numUpdatedRows) === 0) throw requestNotFound(requestId);
    const latest = await trx
      .selectFrom('permanent_id_request_statuses as s')
      .innerJoin(
        'permanent_id_request_status_codes as c',
        'c.id',
        's.permanent_id_request_status_code',
      )
      .select(['s.position', 'c.id as code_id'])
      .where('s.permanent_id_request', '=', id)
      .orderBy('s.position', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (!latest)
      throw gatewayError('ERR_MISSING_DEPENDENCY', 'No status found for Permanent ID Request.', {
        id,
      });
    if (change.permanentId !== undefined) {
      const current = await trx
        .selectFrom('permanent_id_requests')
        .select('permanent_id')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      if (current.permanent_id !== null) {
        throw gatewayError(
          'ERR_EXISTS',
          'This Permanent ID Request already has an associated identifier.',
          { identifier: current.permanent_id },
        );
      }
      await trx
        .updateTable('permanent_id_requests')
        .set({ permanent_id: change.permanentId })
        .where('id', '=', id)
        .execute();
    }
    const codeId =
      change.status === undefined ? latest.code_id : await statusCodeId(trx, change.status);
    const comments =
      change.comments === undefined || change.comments === null || change.comments.trim() === ''
        ? null
        : change.comments;
    await addStatus(trx, id, latest.position + 1, codeId, user, now, comments);
  });
  return requireRequest(db, id);
}
