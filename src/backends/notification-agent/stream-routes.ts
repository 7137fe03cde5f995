// GET /stream: a user's new notifications and count changes as Server-Sent Events (beyond the
// reference agent; the gateway relays it as /secured/notifications/stream).
import type { ServerResponse } from 'node:http';
import type { AgentEvent } from './events.ts';
import { notificationColumns, notificationJson } from './model.ts';
import type { AgentRoutes } from './options.ts';
import { agentQuery, countSelected, selected, systemCounts } from './queries.ts';

/** At most this many missed notifications are replayed to a client that reconnects with Last-Event-ID. */
const replayLimit = 500;

function frame(event: string, data: unknown, id?: string): string {
  return `${id ? `id: ${id}\n` : ''}event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

export const streamRoutes: AgentRoutes = async (app, { db, now, events, heartbeatMs }) => {
  const open = new Set<ServerResponse>();
  // Open streams never end by themselves: a closing server ends them, or its close would wait forever.
  app.addHook('preClose', async () => {
    for (const response of open) response.end();
  });

  const counts = async (user: string) => {
    const [userTotal, userUnseen, system] = await Promise.all([
      countSelected(db, { user }),
      countSelected(db, { user, seen: false }),
      systemCounts(db, user, now()),
    ]);
    return { 'user-total': userTotal, 'user-unseen': userUnseen, ...system };
  };

  app.get('/stream', async (request, reply) => {
    const { user } = agentQuery(request.query);
    const lastEventId = request.headers['last-event-id'];
    let lastCounts = '';
    let chain = Promise.resolve();
    const response = reply.raw;
    const closed = () => response.destroyed || response.writableEnded;
    const send = (text: string) => {
      if (!closed()) response.write(text);
    };

    const sendCounts = async () => {
      const current = await counts(user);
      const text = JSON.stringify(current);
      if (text !== lastCounts) {
        lastCounts = text;
        send(frame('counts', current));
      }
    };
    const sendNotifications = async (rows: Parameters<typeof notificationJson>[0][]) => {
      if (rows.length === 0) return;
      const total = await countSelected(db, { user, seen: false });
      for (const row of rows)
        send(frame('notification', { total, message: notificationJson(row) }, row.id));
    };
    const onEvent = (event: AgentEvent) => {
      chain = chain
        .then(async () => {
          if (closed()) return;
          if (event.kind === 'notification' && event.id) {
            const rows = await selected(db, { user })
              .select([...notificationColumns])
              .where('id', '=', event.id)
              .execute();
            await sendNotifications(rows);
          }
          await sendCounts();
        })
        .catch((error: unknown) =>
          request.log.warn({ err: error, user }, 'a notification stream could not send an event'),
        );
    };

    // Subscribed before the first byte: nothing recorded after the client sees the stream open is missed.
    const unsubscribe = await events.subscribe(user, onEvent);
    reply.hijack();
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    response.write('retry: 5000\n\n');
    open.add(response);

    const heartbeat = setInterval(() => {
      send(': heartbeat\n\n');
      // System messages open and close with time, not events: a recount catches that.
      onEvent({ user, kind: 'counts' });
    }, heartbeatMs);
    response.on('close', () => {
      clearInterval(heartbeat);
      unsubscribe();
      open.delete(response);
    });

    chain = chain
      .then(async () => {
        if (typeof lastEventId === 'string' && lastEventId !== '') {
          const last = await db
            .selectFrom('notifications')
            .select(['id', 'time_created'])
            .where('id', '=', lastEventId.toLowerCase())
            .where('username', '=', user)
            .executeTakeFirst();
          if (last) {
            const missed = await selected(db, { user })
              .select([...notificationColumns])
              .where((eb) =>
                eb.or([
                  eb('time_created', '>', last.time_created),
                  eb.and([eb('time_created', '=', last.time_created), eb('id', '>', last.id)]),
                ]),
              )
              .orderBy('time_created', 'asc')
              .orderBy('id', 'asc')
              .limit(replayLimit)
              .execute();
            await sendNotifications(missed);
          }
        }
        await sendCounts();
      })
      .catch((error: unknown) =>
        request.log.warn({ err: error, user }, 'a notification stream could not start'),
      );
  });
};
