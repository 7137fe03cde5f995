// Tickets (backends.md §2.6): capability URLs that let anyone holding them download one object.
// A ticket id is a random upper-case UUID; its URLs live under TICKET_BASE_URL. This is what a
// ticket is and how one is made; the routes are ticket-routes.ts (create, list, remove) and
// ticket-download-routes.ts (what a ticket grants).
import { randomUUID } from 'node:crypto';
import { atLeast, type DataObject } from './object-index.ts';
import { baseName } from '../../common/data-path.ts';
import { inTransaction } from './moves.ts';
import type { Caller, DataStore } from './store.ts';
import { gatewayError } from '../../common/errors.ts';

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
export function neededLevel(forJob: boolean, mode: 'read' | 'write' = 'read'): 'read' | 'write' {
  return forJob && mode === 'read' ? 'read' : 'write';
}

export async function requireLevel(
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
