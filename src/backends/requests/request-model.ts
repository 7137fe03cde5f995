// Requests as the requests service answers them (backends.md §8): a request with its type, its
// requester, the details they gave, and its status history, the latest status last.
import type { Kysely, Selectable } from 'kysely';
import { gatewayError } from '../../common/errors.ts';
import type { Database } from '../../store/schema.ts';

/** The statuses a request goes through; `approved` and `rejected` complete it. */
export const requestStatuses = ['submitted', 'in-progress', 'approved', 'rejected'] as const;
export type RequestStatus = (typeof requestStatuses)[number];
export const completedStatuses: readonly string[] = ['approved', 'rejected'];

type UpdateRow = Selectable<Database['request_updates']>;

interface RequestRow {
  id: string;
  request_type: string;
  requesting_user: string;
  details: string;
  created_date: number;
}

const iso = (ms: number | string) => new Date(Number(ms)).toISOString();

function updateShape(row: UpdateRow) {
  return {
    id: row.id,
    status: row.status,
    created_date: iso(row.created_date),
    updating_user: row.updating_user,
    message: row.message,
  };
}

export type RequestUpdate = ReturnType<typeof updateShape>;

function requestShape(row: RequestRow, updates: UpdateRow[]) {
  const latest = updates.at(-1);
  return {
    id: row.id,
    request_type: row.request_type,
    requesting_user: row.requesting_user,
    details: JSON.parse(row.details) as Record<string, unknown>,
    created_date: iso(row.created_date),
    status: latest?.status ?? 'submitted',
    updated_date: iso(latest?.created_date ?? row.created_date),
  };
}

export type RequestSummary = ReturnType<typeof requestShape>;

function requestsWithTypes(db: Kysely<Database>) {
  return db
    .selectFrom('requests')
    .innerJoin('request_types', 'request_types.id', 'requests.request_type_id')
    .select([
      'requests.id',
      'request_types.name as request_type',
      'requests.requesting_user',
      'requests.details',
      'requests.created_date',
    ]);
}

async function updatesOf(db: Kysely<Database>, ids: string[]): Promise<Map<string, UpdateRow[]>> {
  const byRequest = new Map<string, UpdateRow[]>(ids.map((id) => [id, []]));
  if (ids.length === 0) return byRequest;
  const rows = await db
    .selectFrom('request_updates')
    .selectAll()
    .where('request_id', 'in', ids)
    .orderBy('created_date')
    .orderBy('id')
    .execute();
  for (const row of rows) byRequest.get(row.request_id)?.push(row);
  return byRequest;
}

export interface RequestFilter {
  requestType?: string;
  requestingUser?: string;
  includeCompleted: boolean;
}

/** Requests matching `filter`, oldest first (without their histories). */
export async function listRequests(
  db: Kysely<Database>,
  filter: RequestFilter,
): Promise<RequestSummary[]> {
  let query = requestsWithTypes(db);
  if (filter.requestType) query = query.where('request_types.name', '=', filter.requestType);
  if (filter.requestingUser)
    query = query.where('requests.requesting_user', '=', filter.requestingUser);
  const rows = await query.orderBy('requests.created_date').orderBy('requests.id').execute();
  const updates = await updatesOf(
    db,
    rows.map((row) => row.id),
  );
  return rows
    .map((row) => requestShape(row, updates.get(row.id) ?? []))
    .filter((each) => filter.includeCompleted || !completedStatuses.includes(each.status));
}

/** One request with its status history (`updates`, oldest first); 404 when there is none. */
export async function requestDetails(db: Kysely<Database>, id: string) {
  const row = await requestsWithTypes(db).where('requests.id', '=', id).executeTakeFirst();
  if (!row) throw gatewayError('ERR_NOT_FOUND', `no request with id "${id}"`, { id });
  const updates = (await updatesOf(db, [id])).get(id) ?? [];
  return { ...requestShape(row, updates), updates: updates.map(updateShape) };
}

export type RequestDetails = Awaited<ReturnType<typeof requestDetails>>;
