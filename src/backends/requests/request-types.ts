// Request types (backends.md §8 requests): each names a kind of request and its per-user limits.
// `maximum_requests_per_user` bounds every request one user has ever filed of the type;
// `maximum_concurrent_requests_per_user` bounds those still open (submitted or in progress). Null
// means no limit. The gateway registers `vice` (1 and 10) the first time someone asks for access.
import type { FastifyPluginAsync } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import { gatewayError } from '../../common/errors.ts';
import { badQueryParam, singleParam } from '../../common/query-params.ts';
import type { Database } from '../../store/schema.ts';

export type RequestTypeRow = Selectable<Database['request_types']>;

/** A type's name: lower-case letters, digits and dashes, as it appears in paths. */
const namePattern = /^[a-z0-9][a-z0-9-]{0,127}$/;

type LimitField = 'maximum_requests_per_user' | 'maximum_concurrent_requests_per_user';
const limitParams: Record<LimitField, string> = {
  maximum_requests_per_user: 'maximum-requests-per-user',
  maximum_concurrent_requests_per_user: 'maximum-concurrent-requests-per-user',
};

/** The limits given in the query (kebab-case names, as routes.md §23 has them); absent ones left out. */
function limitsIn(query: unknown): Partial<Record<LimitField, number>> {
  const limits: Partial<Record<LimitField, number>> = {};
  for (const [field, param] of Object.entries(limitParams) as [LimitField, string][]) {
    const value = singleParam(query, param);
    if (value === undefined || value === '') continue;
    if (!/^\d{1,6}$/.test(value) || Number(value) < 1)
      throw badQueryParam(param, `query parameter "${param}" must be a whole number of at least 1`);
    limits[field] = Number(value);
  }
  return limits;
}

export function requestTypeShape(row: RequestTypeRow) {
  return {
    id: row.id,
    name: row.name,
    maximum_requests_per_user: row.maximum_requests_per_user,
    maximum_concurrent_requests_per_user: row.maximum_concurrent_requests_per_user,
  };
}

export async function findRequestType(
  db: Kysely<Database>,
  name: string,
): Promise<RequestTypeRow | undefined> {
  return db.selectFrom('request_types').selectAll().where('name', '=', name).executeTakeFirst();
}

async function requireRequestType(db: Kysely<Database>, name: string): Promise<RequestTypeRow> {
  const found = await findRequestType(db, name);
  if (!found) throw gatewayError('ERR_NOT_FOUND', `no request type named "${name}"`, { name });
  return found;
}

export const requestTypeRoutes: FastifyPluginAsync<{ db: Kysely<Database> }> = async (
  app,
  { db },
) => {
  type Params = { Params: { name: string } };

  app.get('/request-types', async () => {
    const rows = await db.selectFrom('request_types').selectAll().orderBy('name').execute();
    return { request_types: rows.map(requestTypeShape) };
  });

  app.get<Params>('/request-types/:name', async (request) =>
    requestTypeShape(await requireRequestType(db, request.params.name)),
  );

  // Registering is idempotent: a type already there is answered as it stands (its limits kept),
  // so that the gateway may register `vice` on every request without undoing an administrator's change.
  app.post<Params>('/request-types/:name', async (request) => {
    const { name } = request.params;
    if (!namePattern.test(name))
      throw gatewayError(
        'ERR_BAD_REQUEST',
        'a request type name is lower-case letters, digits and dashes',
        { name },
      );
    const limits = limitsIn(request.query);
    const existing = await findRequestType(db, name);
    if (existing) return requestTypeShape(existing);
    await db
      .insertInto('request_types')
      .values({
        id: randomUUID(),
        name,
        maximum_requests_per_user: limits.maximum_requests_per_user ?? null,
        maximum_concurrent_requests_per_user: limits.maximum_concurrent_requests_per_user ?? null,
      })
      .onConflict((conflict) => conflict.column('name').doNothing())
      .execute();
    return requestTypeShape(await requireRequestType(db, name));
  });

  app.patch<Params>('/request-types/:name', async (request) => {
    const existing = await requireRequestType(db, request.params.name);
    const limits = limitsIn(request.query);
    if (Object.keys(limits).length > 0)
      await db.updateTable('request_types').set(limits).where('id', '=', existing.id).execute();
    return requestTypeShape(await requireRequestType(db, existing.name));
  });
};
