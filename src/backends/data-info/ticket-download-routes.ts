import { Readable } from 'node:stream';
import type { FastifyPluginAsync } from 'fastify';
import type { ExpressionBuilder } from 'kysely';
import { Type } from 'typebox';
import type { Database } from '../../store/schema.ts';
import { contentDisposition } from '../../common/content-disposition.ts';
import { parseRange, type OpenBlob } from './blob-store.ts';
import { atLeast, type DataObject } from './object-index.ts';
import { baseName, isWithin } from '../../common/data-path.ts';
import { trashBase } from './moves.ts';
import type { DataStore } from './store.ts';
import { ticketDefinition } from './tickets.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/**
 * What a ticket grants (backends.md §2.6): anyone holding its id may download the object, with no
 * `user` parameter. Each download counts one use; a ticket whose uses-limit is reached, whose
 * object is gone, whose creator can no longer read the object, or whose object lies in a trash
 * answers ERR_TICKET_DOES_NOT_EXIST. The last is a suspension, not an end: the ticket is kept (its
 * uses uncounted) and works again once the object is restored; deleting the object for good
 * deletes it.
 */

const ticketPattern =
  /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$/;

interface ValidTicket {
  id: string;
  object: DataObject;
  usesLimit: number | null;
}

const noSuchTicket = (id: string, why = 'does not exist') =>
  gatewayError('ERR_TICKET_DOES_NOT_EXIST', `ticket ${id} ${why}`);

async function validTicket(data: DataStore, rawId: string): Promise<ValidTicket> {
  if (!ticketPattern.test(rawId)) throw noSuchTicket(rawId);
  const id = rawId.toUpperCase();
  const ticket = await data.db
    .selectFrom('data_tickets')
    .selectAll()
    .where('id', '=', id)
    .executeTakeFirst();
  if (!ticket) throw noSuchTicket(id);
  const object = await data.catalog.byId(ticket.object_id);
  // The ticket lends its creator's access: once that is gone, so is the ticket's.
  if (!object || !atLeast(await data.catalog.permission(ticket.owner, object.path), 'read'))
    throw noSuchTicket(id, 'is no longer valid');
  // What is in the trash is not published, whoever made the link.
  if (isWithin(object.path, trashBase(data.zone)))
    throw noSuchTicket(id, 'is for an item in the trash');
  return { id, object, usesLimit: ticket.uses_limit };
}

const params = Type.Object({ ticketId: Type.String({ minLength: 1, maxLength: 64 }) });

export const ticketDownloadRoutes: FastifyPluginAsync<{ data: DataStore }> = async (
  app,
  { data },
) => {
  app.get<{ Params: { ticketId: string } }>(
    '/ticket-downloads/:ticketId/info',
    { schema: { params } },
    async (request) => {
      const { id, object } = await validTicket(data, request.params.ticketId);
      return {
        'ticket-id': id,
        path: object.path,
        label: baseName(object.path),
        type: object.type,
        'file-size': object.type === 'file' ? Number(object.size) : 0,
        'download-url': ticketDefinition(data, object.path, id)['download-url'],
      };
    },
  );

  app.get<{ Params: { ticketId: string } }>(
    '/ticket-downloads/:ticketId',
    { schema: { params } },
    async (request, reply) => {
      const { id, object, usesLimit } = await validTicket(data, request.params.ticketId);
      if (object.type !== 'file')
        throw gatewayError(
          'ERR_NOT_A_FILE',
          `ticket ${id} is for the folder ${object.path}; only files can be downloaded`,
        );

      // One version of the bytes for the size and the stream, even if an overwrite lands meanwhile.
      let blob: OpenBlob | undefined;
      try {
        blob = await data.content(object);
      } catch (error) {
        const missing = error instanceof GatewayError && error.errorCode === 'ERR_DOES_NOT_EXIST';
        if (!missing || Number(object.size) !== 0) throw error; // an empty file may have no bytes
      }
      try {
        const size = blob?.size ?? 0;
        const range = parseRange(
          typeof request.headers.range === 'string' ? request.headers.range : undefined,
          size,
        );
        if (range === 'unsatisfiable') {
          throw gatewayError(
            'ERR_RANGE_NOT_SATISFIABLE',
            `the requested range is outside the ${size} bytes of the file`,
            {},
            { 'content-range': `bytes */${size}` },
          );
        }

        const head = request.method === 'HEAD'; // a probe (link previews, download managers) is not a use
        const usable = (eb: ExpressionBuilder<Database, 'data_tickets'>) =>
          eb.or([eb('uses_limit', 'is', null), eb('uses_count', '<', eb.ref('uses_limit'))]);
        // Counting and checking the limit is one statement, so concurrent downloads cannot overrun it.
        const counted = head
          ? (
              await data.db
                .selectFrom('data_tickets')
                .select('id')
                .where('id', '=', id)
                .where(usable)
                .execute()
            ).length
          : Number(
              (
                await data.db
                  .updateTable('data_tickets')
                  .set((eb) => ({ uses_count: eb('uses_count', '+', 1) }))
                  .where('id', '=', id)
                  .where(usable)
                  .executeTakeFirst()
              ).numUpdatedRows,
            );
        if (counted === 0) throw noSuchTicket(id, `has reached its uses limit (${usesLimit})`);

        reply
          .header('content-type', object.content_type || 'application/octet-stream')
          .header('content-disposition', contentDisposition('attachment', baseName(object.path)))
          .header('accept-ranges', 'bytes')
          .header('cache-control', 'no-store');
        if (range)
          reply.code(206).header('content-range', `bytes ${range.start}-${range.end}/${size}`);
        reply.header('content-length', range ? range.end - range.start + 1 : size);
        // Fastify's HEAD handling keeps our Content-Length only for a stream; an empty one reads nothing.
        if (head) return reply.send(Readable.from([]));
        if (size === 0) return reply.send();
        const stream = blob!.stream(range);
        blob = undefined; // the stream closes it
        return reply.send(stream);
      } finally {
        await blob?.close();
      }
    },
  );
};
