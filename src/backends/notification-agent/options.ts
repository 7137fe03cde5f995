import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.js';
import type { AgentEventBus } from './events.js';

/** What every route module of the notification agent is given. */
export interface AgentOptions {
  db: Kysely<Database>;
  /** Milliseconds since the epoch; tests move it to open and close system-message windows. */
  now: () => number;
  events: AgentEventBus;
  /** How often an open stream gets a heartbeat (and a recount). */
  heartbeatMs: number;
}

export type AgentRoutes = FastifyPluginAsync<AgentOptions>;
