import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import type { Database } from '../../store/schema.ts';
import type { LiveNotifications } from './amqp.ts';
import type { AgentEventBus } from './events.ts';
import type { WebhookDispatcher } from './webhook-delivery.ts';

/** What every route module of the notification agent is given. */
export interface AgentOptions {
  db: Kysely<Database>;
  /** Milliseconds since the epoch; tests move it to open and close system-message windows. */
  now: () => number;
  events: AgentEventBus;
  /** How often an open stream gets a heartbeat (and a recount). */
  heartbeatMs: number;
  /** Writes and delivers each new notification's deliveries to the user's webhooks subscribed to its type. */
  webhooks: WebhookDispatcher;
  /** Publishes each new notification to the UI's AMQP exchange, when AMQP_URI is set. */
  live?: LiveNotifications;
}

export type AgentRoutes = FastifyPluginAsync<AgentOptions>;
