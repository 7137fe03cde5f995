/**
 * The one way the gateway sends a user a notification: POST /notification to the notification
 * agent (backends.md §4.1, §4.4). Notifications report something that already happened, so a
 * failure to send one must never fail (or crash) the work it reports: it is logged and reported
 * as `false`, never thrown.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { UserNotification } from '../common/notifications.ts';
import type { Forwarder } from './proxy.ts';

/** Sends one notification; answers whether the agent accepted it. */
export async function sendNotification(
  forwarder: Forwarder,
  notification: UserNotification,
  log: Pick<FastifyBaseLogger, 'warn'>,
  requestId?: string,
): Promise<boolean> {
  const { type, user, subject, message = subject, payload = {}, key } = notification;
  try {
    const response = await forwarder.call(
      'notification-agent',
      {
        method: 'POST',
        path: '/notification',
        identityStyle: 'none',
        json: { type, user, subject, message, email: false, payload },
        ...(key ? { headers: { 'idempotency-key': key } } : {}),
      },
      requestId,
    );
    const text = await response.body.text();
    if (response.statusCode >= 200 && response.statusCode < 300) return true;
    log.warn(
      { status: response.statusCode, body: text.slice(0, 500), type, user, subject },
      'the notification agent refused a notification',
    );
  } catch (error) {
    log.warn({ err: error, type, user, subject }, 'could not send a notification');
  }
  return false;
}
