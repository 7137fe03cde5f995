// Tool requests (routes.md §17, §18; docs/api/tools.md): a user asks for a tool to be installed;
// administrators move the request through its statuses, each change told to the requester with a
// `tool` notification. A status is one of the status codes; an administrator naming a status no
// code has adds that code (as the DE does). Usernames are short in the store, qualified in answers.
import { randomUUID } from 'node:crypto';
import type { FastifyPluginAsync } from 'fastify';
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { paged } from '../../../store/paging.ts';
import { gatewayError } from '../../../common/errors.ts';
import { badQueryParam, countParam, normalizeQuery } from '../../../common/query-params.ts';
import { isJsonObject } from '../../../common/request-body.ts';
import type { UserNotification } from '../../../common/notifications.ts';
import { qualifiedUsername, shortUsername } from '../../../common/users.ts';
import { signedInUser } from '../shared/index.ts';

/** The status every request starts in. */
const submitted = 'Submitted';

/** The request's optional text fields, kept as sent (besides name, description and version). */
const textFields = [
  'source_url',
  'source_upload_file',
  'documentation_url',
  'attribution',
  'test_data_path',
  'cmd_line',
  'additional_info',
  'additional_data_file',
  'phone',
  'architecture',
] as const;

const sortFields = ['name', 'version', 'date_submitted', 'date_updated', 'status'] as const;

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

/** The details kept as a JSON document: the fields of `textFields`, `multithreaded`, `interactive`. */
function requestInput(raw: unknown) {
  if (!isJsonObject(raw)) throw bad('body', 'a tool request must be an object');
  const text = (field: string, max: number, required: boolean) => {
    const value = raw[field];
    if (value === undefined || value === null) {
      if (required) throw bad(field, `"${field}" is required`);
      return undefined;
    }
    if (typeof value !== 'string' || (required && value.trim() === '') || value.length > max)
      throw bad(
        field,
        `"${field}" must be a${required ? ' non-empty' : ''} string of at most ${max} characters`,
      );
    return value;
  };
  const name = text('name', 255, true)!;
  const description = text('description', 65536, true)!;
  const version = text('version', 255, true)!;
  const details: Record<string, unknown> = {};
  for (const field of textFields) {
    const value = text(field, 65536, false);
    if (value !== undefined) details[field] = value;
  }
  if (!details.source_url && !details.source_upload_file)
    throw bad('source_url', 'a tool request needs "source_url" or "source_upload_file"');
  for (const field of ['multithreaded', 'interactive']) {
    const value = raw[field];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'boolean') throw bad(field, `"${field}" must be true or false`);
    details[field] = value;
  }
  return { name, description, version, details };
}

type RequestParams = { Params: { requestId: string } };

export const toolRequestRoutes: FastifyPluginAsync<{
  db: Kysely<Database>;
  uidDomain: string;
  notify: (notification: UserNotification) => Promise<boolean>;
  now: () => number;
}> = async (app, { db, uidDomain, notify, now }) => {
  const qualified = (user: string) => qualifiedUsername(user, uidDomain);

  /** Requests with their current status (the highest position). */
  const summaries = () =>
    db
      .selectFrom('tool_requests as r')
      .innerJoin('tool_request_statuses as s', (join) =>
        join.onRef('s.tool_request_id', '=', 'r.id').on('s.position', '=', (eb) =>
          eb
            .selectFrom('tool_request_statuses as w')
            .select((w) => w.fn.max('w.position').as('top'))
            .whereRef('w.tool_request_id', '=', 'r.id'),
        ),
      )
      .innerJoin('tool_request_status_codes as c', 'c.id', 's.status_code_id');

  const listRequests = async (raw: unknown, requester?: string) => {
    const query = normalizeQuery(raw) as Record<string, string>;
    const sortField = (query['sort-field'] ?? 'date_submitted').toLowerCase();
    const sortDir = (query['sort-dir'] ?? 'asc').toLowerCase();
    if (!(sortFields as readonly string[]).includes(sortField))
      throw badQueryParam('sort-field', `sort-field must be one of ${sortFields.join(', ')}`);
    if (sortDir !== 'asc' && sortDir !== 'desc')
      throw badQueryParam('sort-dir', 'sort-dir must be ASC or DESC');
    let selection = summaries();
    // `user` is the caller (the gateway sets it): administrators filter with `requested-by`.
    const user = requester ?? (query['requested-by'] && shortUsername(query['requested-by']));
    if (user) selection = selection.where('r.requested_by', '=', user);
    if (query.status)
      selection = selection.where(sql<boolean>`lower(c.name) = ${query.status.toLowerCase()}`);
    const total = await selection
      .select((eb) => eb.fn.countAll<number>().as('count'))
      .executeTakeFirst();
    const order = sortDir as 'asc' | 'desc';
    const column = {
      name: sql`lower(r.name)`,
      version: sql`lower(r.version)`,
      date_submitted: sql`r.date_submitted`,
      date_updated: sql`s.status_date`,
      status: sql`lower(c.name)`,
    }[sortField as (typeof sortFields)[number]];
    const rows = await paged(
      selection
        .select([
          'r.id',
          'r.name',
          'r.version',
          'r.requested_by',
          'r.date_submitted',
          'c.name as status',
          's.status_date',
          's.updated_by',
        ])
        .orderBy(column, order)
        .orderBy('r.id', order),
      countParam(query, 'limit', 0),
      countParam(query, 'offset', 0),
    ).execute();
    return {
      tool_requests: rows.map((row) => ({
        id: row.id,
        name: row.name,
        version: row.version,
        requested_by: qualified(row.requested_by),
        date_submitted: Number(row.date_submitted),
        status: row.status,
        date_updated: Number(row.status_date),
        updated_by: qualified(row.updated_by),
      })),
      total: Number(total?.count ?? 0),
    };
  };

  const details = async (id: string) => {
    const row = await db
      .selectFrom('tool_requests')
      .selectAll()
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (!row) throw gatewayError('ERR_NOT_FOUND', `no tool request ${id}`, { request_id: id });
    const history = await db
      .selectFrom('tool_request_statuses as s')
      .innerJoin('tool_request_status_codes as c', 'c.id', 's.status_code_id')
      .select(['c.name as status', 's.status_date', 's.updated_by', 's.comments'])
      .where('s.tool_request_id', '=', row.id)
      .orderBy('s.position')
      .execute();
    return {
      id: row.id,
      submitted_by: qualified(row.requested_by),
      name: row.name,
      description: row.description,
      version: row.version,
      ...(JSON.parse(row.details) as Record<string, unknown>),
      ...(row.tool_id ? { tool_id: row.tool_id } : {}),
      history: history.map((entry) => ({
        status: entry.status,
        status_date: Number(entry.status_date),
        updated_by: qualified(entry.updated_by),
        comments: entry.comments,
      })),
    };
  };

  /** The code named `name` (any letter case), made when there is none. */
  const statusCode = async (trx: Transaction<Database>, name: string) => {
    const found = await trx
      .selectFrom('tool_request_status_codes')
      .select(['id', 'name'])
      .where(sql<boolean>`lower(name) = ${name.toLowerCase()}`)
      .executeTakeFirst();
    if (found) return found;
    const last = await trx
      .selectFrom('tool_request_status_codes')
      .select((eb) => eb.fn.max('ordinal').as('top'))
      .executeTakeFirst();
    const code = { id: randomUUID(), name, description: name };
    await trx
      .insertInto('tool_request_status_codes')
      .values({ ...code, ordinal: Number(last?.top ?? 0) + 1 })
      .execute();
    return code;
  };

  const addStatus = async (
    trx: Transaction<Database>,
    requestId: string,
    status: string,
    by: string,
    comments: string,
  ) => {
    const code = await statusCode(trx, status);
    const last = await trx
      .selectFrom('tool_request_statuses')
      .select((eb) => eb.fn.max('position').as('top'))
      .where('tool_request_id', '=', requestId)
      .executeTakeFirst();
    await trx
      .insertInto('tool_request_statuses')
      .values({
        id: randomUUID(),
        tool_request_id: requestId,
        status_code_id: code.id,
        position: Number(last?.top ?? 0) + 1,
        status_date: now(),
        updated_by: by,
        comments,
      })
      .execute();
    return code.name;
  };

  /** The requester hears of their request's new status. */
  const tell = (
    request: Awaited<ReturnType<typeof details>>,
    requester: string,
    action: string,
  ) => {
    const current = request.history[request.history.length - 1]!;
    void notify({
      type: 'tool',
      user: requester,
      subject: `Tool request ${request.name} ${request.version}: ${current.status}`,
      payload: {
        action,
        email_template:
          action === 'tool_request_submitted' ? 'tool_request_submitted' : 'tool_request_updated',
        id: request.id,
        tool_request_id: request.id,
        toolname: request.name,
        name: request.name,
        version: request.version,
        description: request.description,
        submitted_by: request.submitted_by,
        status: current.status,
        status_date: current.status_date,
        updated_by: current.updated_by,
        comments: current.comments,
      },
    }).catch(() => false);
  };

  app.post('/tool-requests', async (request) => {
    const user = signedInUser(request.query, 'request tools');
    const input = requestInput(request.body);
    const id = randomUUID();
    await db.transaction().execute(async (trx) => {
      await trx
        .insertInto('tool_requests')
        .values({
          id,
          requested_by: user,
          name: input.name,
          version: input.version,
          description: input.description,
          details: JSON.stringify(input.details),
          date_submitted: now(),
        })
        .execute();
      await addStatus(trx, id, submitted, user, '');
    });
    const answer = await details(id);
    tell(answer, user, 'tool_request_submitted');
    return answer;
  });

  app.get('/tool-requests', async (request) =>
    listRequests(request.query, signedInUser(request.query, 'list tool requests')),
  );

  app.get('/tool-requests/status-codes', async () => ({
    status_codes: await db
      .selectFrom('tool_request_status_codes')
      .select(['id', 'name', 'description'])
      .orderBy('ordinal')
      .orderBy('name')
      .execute(),
  }));

  // ---- administrators (the gateway lets only them through) ---------------------------------------

  app.get('/admin/tool-requests', async (request) => listRequests(request.query));

  app.get<RequestParams>('/admin/tool-requests/:requestId', async (request) =>
    details(request.params.requestId),
  );

  app.delete<RequestParams>('/admin/tool-requests/:requestId', async (request) => {
    const { id } = await details(request.params.requestId);
    await db.deleteFrom('tool_requests').where('id', '=', id).execute();
    return { id };
  });

  app.post<RequestParams>('/admin/tool-requests/:requestId/status', async (request) => {
    const admin = signedInUser(request.query, 'update tool requests');
    const body = request.body;
    if (!isJsonObject(body)) throw bad('status', 'the body must be {status, comments?}');
    const { status, comments } = body;
    if (typeof status !== 'string' || status.trim() === '' || status.length > 64)
      throw bad('status', '"status" must be a non-empty string of at most 64 characters');
    if (comments !== undefined && comments !== null && typeof comments !== 'string')
      throw bad('comments', '"comments" must be a string');
    const { id } = await details(request.params.requestId);
    await db.transaction().execute(async (trx) => {
      await addStatus(trx, id, status.trim(), admin, (comments as string | undefined) ?? '');
    });
    const answer = await details(id);
    const requester = await db
      .selectFrom('tool_requests')
      .select('requested_by')
      .where('id', '=', id)
      .executeTakeFirstOrThrow();
    tell(answer, requester.requested_by, 'tool_request_status_change');
    return answer;
  });

  app.delete<{ Params: { codeId: string } }>(
    '/admin/tool-requests/status-codes/:codeId',
    async (request) => {
      const id = request.params.codeId.toLowerCase();
      const code = await db
        .selectFrom('tool_request_status_codes')
        .select(['id', 'name'])
        .where('id', '=', id)
        .executeTakeFirst();
      if (!code)
        throw gatewayError('ERR_NOT_FOUND', `no tool request status code ${id}`, {
          status_code_id: id,
        });
      const used = await db
        .selectFrom('tool_request_statuses')
        .select('id')
        .where('status_code_id', '=', id)
        .limit(1)
        .executeTakeFirst();
      if (used)
        throw gatewayError(
          'ERR_ILLEGAL_ARGUMENT',
          `status code ${code.name} is in use by tool requests`,
          { status_code_id: id },
        );
      await db.deleteFrom('tool_request_status_codes').where('id', '=', id).execute();
      return { id, name: code.name };
    },
  );
};
