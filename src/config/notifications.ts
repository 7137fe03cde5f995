// Mail and notifications: where the embedded email service's messages go, who may send
// notifications, the notification stream's heartbeat, delivery to users' webhooks, and live
// notifications published over AMQP.
import path from 'node:path';
import { addressRanges, boolean, integer, text, url, type Env } from './variables.ts';

/** Where the embedded email service's messages go (docs/configuration.md, "Email"). */
export interface EmailSettings {
  /** Sent over SMTP here when set (SMTP_URL, `smtp:` or `smtps:`, credentials in the URL). */
  smtpUrl?: string;
  /** Otherwise written as `.eml` files here: `<GATEWAY_DATA_DIR>/outbox`. */
  outboxDir: string;
  /** Where `/support-email` messages go (SUPPORT_EMAIL_TO). */
  supportTo: string;
  /** The sender of messages that name none of their own (SUPPORT_EMAIL_FROM). */
  defaultFrom: string;
}

export interface NotificationSettings {
  /** Who may POST /send-notification (SEND_NOTIFICATION_ALLOW): IP addresses and CIDR ranges; default loopback. */
  sendAllow: string[];
  /** How often an open notification stream gets a heartbeat and a recount (NOTIFICATION_STREAM_HEARTBEAT_MS). */
  streamHeartbeatMs: number;
  /** How long an app description added to job notifications is reused (APP_DESCRIPTION_CACHE_MS). */
  appDescriptionCacheMs: number;
  /** Delivering notifications to users' webhooks (docs/api/webhooks.md). */
  webhooks: {
    /** Let webhook URLs name loopback, private and link-local addresses (WEBHOOKS_ALLOW_PRIVATE_NETWORKS). */
    allowPrivateNetworks: boolean;
    /** Longest wait for a webhook's answer, per attempt (WEBHOOK_TIMEOUT_MS). */
    timeoutMs: number;
    /** Attempts per delivery, the first included (WEBHOOK_ATTEMPTS). */
    attempts: number;
    /** Pause before the first retry, doubled before each further one (WEBHOOK_RETRY_DELAY_MS). */
    retryDelayMs: number;
  };
  /** Live notifications published to the UI's AMQP exchange (docs/api/notifications.md); off without AMQP_URI. */
  amqp?: {
    /** The broker, e.g. amqp://user:password@host:5672/vhost (AMQP_URI; its password is masked in /admin/config). */
    uri: string;
    /** The topic exchange, routing key `notification.<username>` (AMQP_EXCHANGE, default `de`). */
    exchange: string;
    /** Longest pause between reconnection attempts (AMQP_RECONNECT_MAX_MS). */
    reconnectMaxMs: number;
    /** Messages kept while the broker is away, the oldest dropped beyond it (AMQP_QUEUE_LIMIT). */
    queueLimit: number;
  };
}

export function emailSettings(env: Env, dataDir: string): EmailSettings {
  return {
    smtpUrl: url(env, 'SMTP_URL', ['smtp:', 'smtps:'])?.toString(),
    outboxDir: path.join(dataDir, 'outbox'),
    supportTo: text(env, 'SUPPORT_EMAIL_TO') ?? 'support@localhost',
    defaultFrom: text(env, 'SUPPORT_EMAIL_FROM') ?? 'noreply@localhost',
  };
}

export function notificationSettings(env: Env): NotificationSettings {
  return {
    sendAllow: addressRanges(env, 'SEND_NOTIFICATION_ALLOW', ['127.0.0.0/8', '::1/128']),
    streamHeartbeatMs: integer(env, 'NOTIFICATION_STREAM_HEARTBEAT_MS', 15_000, 100, 3_600_000),
    appDescriptionCacheMs: integer(env, 'APP_DESCRIPTION_CACHE_MS', 60_000, 0, 86_400_000),
    webhooks: {
      allowPrivateNetworks: boolean(env, 'WEBHOOKS_ALLOW_PRIVATE_NETWORKS', false),
      timeoutMs: integer(env, 'WEBHOOK_TIMEOUT_MS', 10_000, 100, 300_000),
      attempts: integer(env, 'WEBHOOK_ATTEMPTS', 3, 1, 10),
      retryDelayMs: integer(env, 'WEBHOOK_RETRY_DELAY_MS', 2_000, 0, 3_600_000),
    },
    amqp: amqpSettings(env),
  };
}

function amqpSettings(env: Env): NotificationSettings['amqp'] {
  const uri = url(env, 'AMQP_URI', ['amqp:', 'amqps:']);
  if (!uri) return undefined;
  return {
    uri: uri.toString(),
    exchange: text(env, 'AMQP_EXCHANGE') ?? 'de',
    reconnectMaxMs: integer(env, 'AMQP_RECONNECT_MAX_MS', 30_000, 100, 3_600_000),
    queueLimit: integer(env, 'AMQP_QUEUE_LIMIT', 10_000, 1, 1_000_000),
  };
}
