import { openChannel } from '../../store/channel.ts';
import { documented } from './documented.ts';
import type { EmbeddedService } from '../service.ts';
import { AmqpPublisher, LiveNotifications } from './amqp.ts';
import { LiveOutbox } from './live-outbox.ts';
import { AgentEventBus } from './events.ts';
import { messageRoutes } from './message-routes.ts';
import { streamRoutes } from './stream-routes.ts';
import { systemMessageRoutes } from './system-message-routes.ts';
import { WebhookDispatcher } from './webhook-delivery.ts';

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
} from './webhooks.ts';

/**
 * The notification agent (backends.md §4): user notifications, system messages, and a stream of
 * changes. Every process on the same store hears every change (StoreChannel), so a stream served
 * by one gateway sees notifications recorded through another. Each notification recorded is also
 * POSTed to the user's webhooks subscribed to its type (webhook-delivery.ts, from the outbox of
 * webhook-outbox.ts), and published to the UI's
 * AMQP exchange when AMQP_URI is set (amqp.ts, from the outbox of live-outbox.ts).
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
    let live: LiveNotifications | undefined;
    if (amqp) {
      const outbox = new LiveOutbox({ db: store.db, now });
      const publisher = new AmqpPublisher(amqp, outbox, app.log);
      app.addHook('onClose', async () => publisher.close());
      live = new LiveNotifications(store.db, outbox, publisher, app.log);
    }
    const options = {
      db: store.db,
      now,
      events: new AgentEventBus(channel, app.log),
      heartbeatMs: config.notifications.streamHeartbeatMs,
      webhooks,
      live,
    };
    for (const routes of [messageRoutes, systemMessageRoutes, streamRoutes]) {
      await app.register(routes, options);
    }
  },
};
