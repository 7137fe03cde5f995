import { openChannel } from '../../store/channel.js';
import { documented } from './documented.js';
import type { EmbeddedService } from '../service.js';
import { AmqpPublisher, LiveNotifications } from './amqp.js';
import { AgentEventBus } from './events.js';
import { messageRoutes } from './message-routes.js';
import { streamRoutes } from './stream-routes.js';
import { systemMessageRoutes } from './system-message-routes.js';
import { WebhookDispatcher } from './webhooks.js';

/**
 * The notification agent's door: the service itself, for the embedded host, and users' webhooks,
 * which the agent delivers to and the apps service keeps (its `/webhooks` routes call these).
 */
export {
  maxWebhooksPerUser,
  replaceWebhooks,
  signatureHeader,
  userWebhooks,
  webhookTopics,
  webhookTypes,
} from './webhooks.js';

/**
 * The notification agent (backends.md §4): user notifications, system messages, and a stream of
 * changes. Every process on the same store hears every change (StoreChannel), so a stream served
 * by one gateway sees notifications recorded through another. Each notification recorded is also
 * POSTed to the user's webhooks subscribed to its type (webhooks.ts), and published to the UI's
 * AMQP exchange when AMQP_URI is set (amqp.ts).
 */
export const notificationAgentService: EmbeddedService = {
  name: 'notification-agent',
  documented,
  plugin: async (app, { store, config, now = Date.now }) => {
    const channel = openChannel(store, 'notification_events', (error) =>
      app.log.warn({ err: error }, 'notification channel trouble'),
    );
    app.addHook('onClose', async () => channel.close());
    const webhooks = new WebhookDispatcher(store.db, config.notifications.webhooks, app.log);
    app.addHook('onClose', async () => webhooks.close());
    const amqp = config.notifications.amqp;
    const publisher = amqp ? new AmqpPublisher(amqp, app.log) : undefined;
    if (publisher) app.addHook('onClose', async () => publisher.close());
    const options = {
      db: store.db,
      now,
      events: new AgentEventBus(channel, app.log),
      heartbeatMs: config.notifications.streamHeartbeatMs,
      webhooks,
      live: publisher ? new LiveNotifications(store.db, publisher, app.log) : undefined,
    };
    for (const routes of [messageRoutes, systemMessageRoutes, streamRoutes]) {
      await app.register(routes, options);
    }
  },
};
