import { randomUUID } from 'node:crypto';
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { Type } from 'typebox';
import { sendError, toGatewayError } from '../../common/error-replies.js';
import {
  booleanParam,
  integerParam,
  pathList,
  stringList,
  bodyObject,
  stringParam,
  userOf,
} from './bulk.js';
import { atLeast, type DataObject } from './object-index.js';
import { baseName } from '../../common/data-path.js';
import { inTransaction } from './moves.js';
import type { Caller, DataStore } from './store.js';
import { ticketDownloadRoutes } from './ticket-download-routes.js';
import { gatewayError } from '../../common/errors.js';

/**
 * Tickets (backends.md §2.6): capability URLs that let anyone holding them download one object.
 * A ticket id is a random upper-case UUID; its URLs live under TICKET_BASE_URL.
 */

export interface TicketDefinition {
  path: string;
  'ticket-id': string;
  'download-url': string;
  'download-page-url': string;
}

export interface TicketOptions {
  mode: 'read' | 'write';
  public: boolean;
  forJob: boolean;
  usesLimit?: number;
  fileWriteLimit?: number;
}

export function ticketDefinition(
  data: DataStore,
  path: string,
  ticketId: string,
): TicketDefinition {
  const base = data.options.ticketBaseUrl.replace(/\/+$/, '');
  return {
    path,
    'ticket-id': ticketId,
    'download-url': `${base}/d/${ticketId}/${encodeURIComponent(baseName(path))}`,
    'download-page-url': `${base}/${ticketId}`,
  };
}

/** Job tickets (for-job, read) need read access; every other ticket needs write access. */
function neededLevel(forJob: boolean, mode: 'read' | 'write' = 'read'): 'read' | 'write' {
  return forJob && mode === 'read' ? 'read' : 'write';
}

async function requireLevel(
  data: DataStore,
  caller: Caller,
  object: DataObject,
  level: 'read' | 'write',
): Promise<void> {
  if (!atLeast(await data.permission(caller, object.path), level)) {
    throw gatewayError(
      level === 'read' ? 'ERR_NOT_READABLE' : 'ERR_NOT_WRITEABLE',
      `${caller.name} cannot ${level} ${object.path}`,
    );
  }
}

/** Creates one ticket per path (all checked first, then all inserted in one transaction). */
export async function createTickets(
  data: DataStore,
  caller: Caller,
  paths: string[],
  options: TicketOptions,
): Promise<TicketDefinition[]> {
  const objects: DataObject[] = [];
  for (const path of paths) {
    const object = await data.catalog.byPath(path);
    if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`);
    await requireLevel(data, caller, object, neededLevel(options.forJob, options.mode));
    objects.push(object);
  }
  return inTransaction(data, async (trx) => {
    const tickets: TicketDefinition[] = [];
    for (const object of objects) {
      // A collision of random UUIDs is all but impossible; the contract still says "until unused".
      for (;;) {
        const id = randomUUID().toUpperCase();
        const inserted = await trx
          .insertInto('data_tickets')
          .values({
            id,
            object_id: object.id,
            owner: caller.name,
            mode: options.mode,
            public: options.public,
            for_job: options.forJob,
            uses_limit: options.usesLimit || null,
            file_write_limit: options.fileWriteLimit || null,
            created_at: data.now(),
          })
          .onConflict((conflict) => conflict.column('id').doNothing())
          .executeTakeFirst();
        if (Number(inserted.numInsertedOrUpdatedRows ?? 1) === 0) continue;
        tickets.push(ticketDefinition(data, object.path, id));
        break;
      }
    }
    return tickets;
  });
}

/** Spec: ticket errors are `{error_code, reason}` only. */
function plainTicketErrors(app: Parameters<FastifyPluginAsync>[0]): void {
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const answer = toGatewayError(error);
    if (answer.statusCode >= 500) request.log.error({ err: error }, 'request failed');
    return sendError(reply, answer.withExtra({}));
  });
}

const userQuery = Type.Object(
  { user: Type.String({ minLength: 1 }) },
  { additionalProperties: true },
);

export const ticketRoutes: FastifyPluginAsync<{ data: DataStore }> = async (app, { data }) => {
  plainTicketErrors(app);

  app.post('/tickets', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writer(userOf(request));
    const mode = stringParam(request.query, 'mode') || 'read';
    if (mode !== 'read' && mode !== 'write')
      throw gatewayError('ERR_BAD_QUERY_PARAMETER', 'query parameter "mode" must be read or write');
    const options: TicketOptions = {
      mode,
      public: booleanParam(request.query, 'public'),
      forJob: booleanParam(request.query, 'for-job', false),
      usesLimit: integerParam(request.query, 'uses-limit'),
      fileWriteLimit: integerParam(request.query, 'file-write-limit'),
    };
    const paths = pathList(data, request.body, 'paths');
    return { user: caller.name, tickets: await createTickets(data, caller, paths, options) };
  });

  app.post('/ticket-lister', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.caller(userOf(request));
    const level = neededLevel(booleanParam(request.query, 'for-job', false));
    const paths = pathList(data, request.body, 'paths');
    const tickets: Record<string, TicketDefinition[]> = {};
    for (const path of paths) {
      const object = await data.catalog.byPath(path);
      if (!object) throw gatewayError('ERR_DOES_NOT_EXIST', `${path} does not exist`);
      await requireLevel(data, caller, object, level);
      const rows = await data.db
        .selectFrom('data_tickets')
        .select('id')
        .where('object_id', '=', object.id)
        .orderBy('created_at')
        .orderBy('id')
        .execute();
      tickets[path] = rows.map((row) => ticketDefinition(data, path, row.id));
    }
    return { tickets };
  });

  app.post('/ticket-deleter', { schema: { querystring: userQuery } }, async (request) => {
    const caller = await data.writer(userOf(request));
    const forJob = booleanParam(request.query, 'for-job', false);
    const ids = [
      ...new Set(
        stringList(bodyObject(request.body).tickets, 'tickets').map((id) => id.toUpperCase()),
      ),
    ];
    await inTransaction(data, async (trx) => {
      const rows =
        ids.length === 0
          ? []
          : await trx
              .selectFrom('data_tickets')
              .select(['id', 'object_id', 'mode'])
              .where('id', 'in', ids)
              .execute();
      const missing = ids.filter((id) => !rows.some((row) => row.id === id));
      if (missing.length > 0)
        throw gatewayError('ERR_TICKET_DOES_NOT_EXIST', `no such ticket: ${missing.join(', ')}`);
      for (const row of rows) {
        const object = (await data.catalog.byId(row.object_id, trx))!;
        if (
          !atLeast(
            await data.catalog.permission(caller.name, object.path, trx),
            neededLevel(forJob, row.mode),
          )
        ) {
          throw gatewayError(
            'ERR_NOT_WRITEABLE',
            `${caller.name} cannot remove the tickets of ${object.path}`,
          );
        }
      }
      if (ids.length > 0) await trx.deleteFrom('data_tickets').where('id', 'in', ids).execute();
    });
    return { user: caller.name, tickets: ids };
  });

  await app.register(ticketDownloadRoutes, { data });
};
