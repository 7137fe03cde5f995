// Tag notifications, beyond the spec: GET /secured/notifications/stream relays the notification
// agent's Server-Sent Events (`/stream`) for the caller, so a web client needs no polling.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { routeSecurity } from '../../http/openapi.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { gatewayError } from '../../common/errors.ts';

/** Open streams a user may hold on one gateway (a browser tab each, say); more get 429. */
const maxStreamsPerUser = 10;

export async function notificationStreamRoutes(
  app: FastifyInstance,
  { forwarder }: { forwarder: Forwarder },
): Promise<void> {
  const streams = new Set<FastifyReply>();
  const openPerUser = new Map<string, number>();
  // Open streams never end by themselves: a closing gateway ends them, or its close would wait for them.
  app.addHook('preClose', async () => {
    for (const reply of streams) reply.raw.destroy();
  });
  app.get('/secured/notifications/stream', {
    config: { auth: 'user' },
    schema: {
      tags: ['notifications'],
      summary:
        "Server-Sent Events: the caller's new notifications and count changes, as they happen",
      description: [
        'Beyond the spec. Events: `counts` (on open and whenever they change: `user-total`, `user-unseen`, `system-total`, `system-total-new`, `system-total-unseen`),',
        '`notification` (`{total: unseen count, message: Notification}`, event id = `message.id`). A comment line is sent every NOTIFICATION_STREAM_HEARTBEAT_MS.',
        'Reconnecting with `Last-Event-ID` replays the notifications recorded since that one. Polling the other routes keeps working unchanged.',
        `A user may hold ${maxStreamsPerUser} streams at once per gateway; more are 429 \`ERR_TOO_MANY_STREAMS\`.`,
      ].join(' '),
      security: routeSecurity('user'),
      response: {
        200: {
          description: 'Server-Sent Events',
          content: { 'text/event-stream': { schema: { type: 'string' } } },
        },
      },
    },
    handler: async (request, reply) => {
      const user = request.identity!.username;
      const open = openPerUser.get(user) ?? 0;
      if (open >= maxStreamsPerUser) {
        throw gatewayError(
          'ERR_TOO_MANY_STREAMS',
          `at most ${maxStreamsPerUser} notification streams per user at once; close one first`,
          { limit: maxStreamsPerUser },
        );
      }
      openPerUser.set(user, open + 1);
      streams.add(reply);
      reply.raw.once('close', () => {
        streams.delete(reply);
        const left = (openPerUser.get(user) ?? 1) - 1;
        if (left > 0) openPerUser.set(user, left);
        else openPerUser.delete(user);
      });
      return forwarder.forward(request, reply, 'notification-agent', {
        method: 'GET',
        path: '/stream',
        rawQuery: '',
        identity: request.identity,
        identityStyle: 'notification',
        bodyLimitBytes: 0,
        openEnded: true,
      });
    },
  });
}
