import type { FastifyBaseLogger } from 'fastify';
import type { DataStore } from './store.js';

// TODO(issue 4): the periodic sweep that deletes trash entries older than TRASH_RETENTION_DAYS.
export function startTrashSweep(_data: DataStore, _log: FastifyBaseLogger): { stop(): void } {
  return { stop() {} };
}
