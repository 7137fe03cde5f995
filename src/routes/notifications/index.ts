// Tag notifications: routes.md §7, spec "Notifications", "Events" and "States and transitions".
// Marks, deletes and system messages are passthrough rows; listings (app descriptions added),
// counts, mark-all and /send-notification (allow-listed) are handled here; the event stream in
// stream.ts.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { GatewayConfig } from '../../config/index.ts';
import type { Identity } from '../../common/identity.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { anyTypeAsJson, type PassthroughRoute } from '../../http/passthrough.ts';
import { notificationStreamRoutes } from './stream.ts';
import type { Tag } from '../shared/tags.ts';
import type { Forwarder } from '../../http/proxy.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import { allowList } from '../../http/address-allow-list.ts';
import { parseJsonText } from '../../common/request-body.ts';
import { AppDescriptions } from './app-descriptions.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/** `{uuids: [message.id]}`: the body of every mark or delete call. */
const messageIds = Type.Object({
  uuids: Type.Array(Type.String({ minLength: 1 }), { maxItems: 1000 }),
});

export const notificationPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'POST',
    path: '/secured/notifications/seen',
    backend: 'notification-agent',
    backendPath: '/seen',
    body: messageIds,
    tag: 'notifications',
    summary: 'Mark notifications as seen; answers `{count}` still unseen',
  },
  {
    method: 'POST',
    path: '/secured/notifications/delete',
    backend: 'notification-agent',
    backendPath: '/delete',
    body: messageIds,
    tag: 'notifications',
    summary: 'Delete notifications; answers `{success, count}` (count still unseen)',
  },
  {
    method: 'DELETE',
    path: '/secured/notifications/delete-all',
    backend: 'notification-agent',
    backendPath: '/delete-all',
    tag: 'notifications',
    summary:
      'Delete all notifications (optionally of one `filter` type); answers `{count}` still unseen',
  },
  {
    method: 'GET',
    path: '/secured/notifications/system/messages',
    backend: 'notification-agent',
    backendPath: '/system/messages',
    tag: 'notifications',
    summary: 'List active system messages not dismissed',
  },
  {
    method: 'GET',
    path: '/secured/notifications/system/new-messages',
    backend: 'notification-agent',
    backendPath: '/system/new-messages',
    tag: 'notifications',
    summary: 'List active system messages not yet received',
  },
  {
    method: 'GET',
    path: '/secured/notifications/system/unseen-messages',
    backend: 'notification-agent',
    backendPath: '/system/unseen-messages',
    tag: 'notifications',
    summary: 'List active system messages not yet seen',
  },
  {
    method: 'POST',
    path: '/secured/notifications/system/received',
    backend: 'notification-agent',
    backendPath: '/system/received',
    body: messageIds,
    tag: 'notifications',
    summary: 'Mark system messages as received; answers `{count}` still new',
  },
  {
    method: 'POST',
    path: '/secured/notifications/system/seen',
    backend: 'notification-agent',
    backendPath: '/system/seen',
    body: messageIds,
    tag: 'notifications',
    summary: 'Mark system messages as seen; answers `{count}` still unseen',
  },
  {
    method: 'POST',
    path: '/secured/notifications/system/delete',
    backend: 'notification-agent',
    backendPath: '/system/delete',
    body: messageIds,
    tag: 'notifications',
    summary: 'Dismiss dismissible system messages; answers `{count}` still active',
  },
  {
    method: 'DELETE',
    path: '/secured/notifications/system/delete-all',
    backend: 'notification-agent',
    backendPath: '/system/delete-all',
    tag: 'notifications',
    summary: 'Dismiss all dismissible system messages',
  },
  {
    method: ['PUT', 'GET'],
    path: '/admin/notifications/system',
    backend: 'notification-agent',
    backendPath: '/admin/system',
    auth: 'admin',
    tag: 'notifications',
    summary:
      'Create (`{type, message, deactivation_date, activation_date?, dismissible?, logins_disabled?}`) or list (`active-only`, `type`, `limit`, `offset`) system messages',
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/admin/notifications/system/{uuid}',
    backend: 'notification-agent',
    backendPath: '/admin/system/{uuid}',
    auth: 'admin',
    tag: 'notifications',
    summary: 'Get, update (users see it anew) or delete a system message',
  },
  {
    method: 'GET',
    path: '/admin/notifications/system-types',
    backend: 'notification-agent',
    backendPath: '/admin/system-types',
    auth: 'admin',
    tag: 'notifications',
    summary: 'List system message types',
  },
];

export interface NotificationDeps {
  forwarder: Forwarder;
  config: GatewayConfig;
}

const Json = Type.Object({}, { additionalProperties: true });
/** A notification as listed; `message.timestamp` is a string (the web UI slices it, clients.md §5.2). */
const Notification = Type.Object(
  {
    type: Type.Optional(Type.String()),
    message: Type.Optional(
      Type.Object(
        {
          id: Type.Optional(Type.String()),
          text: Type.Optional(Type.String()),
          timestamp: Type.Optional(
            Type.String({ pattern: '^[0-9]+$', description: 'Creation time, ms since the epoch' }),
          ),
        },
        { additionalProperties: true },
      ),
    ),
  },
  { additionalProperties: true },
);
const MessageList = Type.Object(
  {
    messages: Type.Array(Notification),
    total: Type.Integer(),
    unseen_total: Type.Optional(
      Type.Integer({ description: 'Unseen notifications of the same type filter' }),
    ),
  },
  { additionalProperties: true },
);
const Count = Type.Object(
  { count: Type.Integer({ description: 'Notifications still unseen' }) },
  { additionalProperties: true },
);
const Counts = Type.Object({
  'user-total': Type.Integer({
    description: 'User notifications not deleted that match the query',
  }),
  'system-total': Type.Integer({ description: 'Active system messages not dismissed' }),
  'system-total-new': Type.Integer({ description: 'Active system messages not received' }),
  'system-total-unseen': Type.Integer({ description: 'Active system messages not seen' }),
});

const listingQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 0, default: 0, description: '0 means no limit' })),
    offset: Type.Optional(Type.Integer({ minimum: 0, default: 0 })),
    seen: Type.Optional(
      Type.Boolean({ description: 'true: only seen; false: only unseen; absent: both' }),
    ),
    sortfield: Type.Optional(
      Type.String({
        description: '`timestamp` (the only one); also spelled sortField, sort-field',
      }),
    ),
    'sort-field': Type.Optional(Type.String()),
    sortdir: Type.Optional(
      Type.String({
        description: '`asc` or `desc` (default), any case; also spelled sortDir, sort-dir',
      }),
    ),
    'sort-dir': Type.Optional(Type.String()),
    filter: Type.Optional(
      Type.String({
        description:
          '`data`, `analysis`, `tool`, another type name (any case, spaces for `_`), or `new` for unseen',
      }),
    ),
  },
  { additionalProperties: false },
);
type ListingQuery = {
  limit?: number;
  offset?: number;
  seen?: boolean;
  sortfield?: string;
  'sort-field'?: string;
  sortdir?: string;
  'sort-dir'?: string;
  filter?: string;
};

function badQuery(field: string, reason: string): GatewayError {
  return gatewayError('ERR_BAD_QUERY_PARAMETER', reason, { field });
}

/** The agent's `/messages` query for a listing (routes.md §7: spellings accepted, values checked). */
function agentListing(query: ListingQuery): Record<string, string | undefined> {
  const sortField = (query.sortfield ?? query['sort-field'] ?? 'timestamp').toLowerCase();
  const sortDir = (query.sortdir ?? query['sort-dir'] ?? 'desc').toLowerCase();
  if (sortField !== 'timestamp')
    throw badQuery('sortField', 'sortField: only "timestamp" is supported');
  if (sortDir !== 'asc' && sortDir !== 'desc')
    throw badQuery('sortDir', 'sortDir must be asc or desc');
  return {
    limit: String(query.limit ?? 0),
    offset: String(query.offset ?? 0),
    seen: query.seen === undefined ? undefined : String(query.seen),
    sort_field: sortField,
    sort_dir: sortDir,
    filter: query.filter === '' ? undefined : query.filter,
  };
}

/** A call to the notification agent as the caller, answering its JSON. */
function agentJson<T>(
  forwarder: Forwarder,
  request: FastifyRequest,
  method: string,
  path: string,
  extra: { query?: Record<string, string | undefined>; json?: unknown } = {},
) {
  return forwarder.callJson<T>(
    'notification-agent',
    { method, path, identity: request.identity, identityStyle: 'notification', ...extra },
    request.id,
  );
}

/** The four counts; an agent that answers only `user-total` (the reference v1) gets the system ones from its system routes. */
async function countMessages(
  forwarder: Forwarder,
  request: FastifyRequest,
  query: Record<string, string | undefined>,
) {
  const counts = await agentJson<Record<string, unknown>>(
    forwarder,
    request,
    'GET',
    '/count-messages',
    { query },
  );
  if (typeof counts['system-total'] === 'number') return counts;
  const lengthOf = async (path: string) =>
    (
      (await agentJson<{ 'system-messages'?: unknown[] }>(forwarder, request, 'GET', path))[
        'system-messages'
      ] ?? []
    ).length;
  const [total, fresh, unseen] = await Promise.all([
    lengthOf('/system/messages'),
    lengthOf('/system/new-messages'),
    lengthOf('/system/unseen-messages'),
  ]);
  return {
    ...counts,
    'system-total': total,
    'system-total-new': fresh,
    'system-total-unseen': unseen,
  };
}

const notificationRequest = Type.Object({
  type: Type.String({
    minLength: 1,
    maxLength: 32,
    pattern: '^[^.]+$',
    description: '`data`, `analysis`, `tool`, … (no `.`)',
  }),
  user: Type.String({ minLength: 1, description: 'Recipient (short username)' }),
  subject: Type.String({ minLength: 1 }),
  message: Type.Optional(Type.String()),
  email: Type.Optional(Type.Boolean()),
  email_template: Type.Optional(Type.String()),
  payload: Type.Optional(Type.Object({}, { additionalProperties: true })),
  outputDir: Type.Optional(Type.String()),
  outputManifest: Type.Optional(Type.Array(Type.Unknown())),
});

async function aggregatedNotificationRoutes(
  app: FastifyInstance,
  deps: NotificationDeps,
): Promise<void> {
  const { forwarder } = deps;
  const descriptions = new AppDescriptions(
    forwarder,
    deps.config.notifications.appDescriptionCacheMs,
  );
  // An agent answering some other shape is relayed as it answered.
  const described = async <T extends { messages: Record<string, unknown>[] }>(
    request: FastifyRequest,
    listing: T,
  ): Promise<T> =>
    Array.isArray(listing?.messages)
      ? {
          ...listing,
          messages: await descriptions.addTo(
            listing.messages,
            request.identity as Identity,
            request.log,
            request.id,
          ),
        }
      : listing;
  const secured = { config: { auth: 'user' as const }, ...documentedNotEnforced };

  app.get('/secured/notifications/messages', {
    ...secured,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['notifications'],
      summary: "The caller's notifications, newest first by default",
      description:
        "Job-status notifications (payload `action` `job_status_change`) carry their app's description in `payload.app_description`.",
      security: routeSecurity('user'),
      querystring: listingQuery,
      response: { 200: MessageList },
    },
    handler: async (request) =>
      described(
        request,
        await agentJson<{ messages: Record<string, unknown>[] }>(
          forwarder,
          request,
          'GET',
          '/messages',
          { query: agentListing(request.query as ListingQuery) },
        ),
      ),
  });

  app.get('/secured/notifications/unseen-messages', {
    ...secured,
    schema: {
      tags: ['notifications'],
      summary: "The caller's unseen notifications, oldest first",
      security: routeSecurity('user'),
      response: { 200: MessageList },
    },
    handler: async (request) =>
      described(
        request,
        await agentJson<{ messages: Record<string, unknown>[] }>(
          forwarder,
          request,
          'GET',
          '/unseen-messages',
        ),
      ),
  });

  app.get('/secured/notifications/last-ten-messages', {
    ...secured,
    schema: {
      tags: ['notifications'],
      summary: "The caller's ten most recent notifications, oldest of them first",
      security: routeSecurity('user'),
      response: { 200: MessageList },
    },
    handler: async (request) => {
      const newest = await agentJson<{ messages: Record<string, unknown>[] }>(
        forwarder,
        request,
        'GET',
        '/messages',
        { query: { limit: '10', offset: '0', sort_field: 'timestamp', sort_dir: 'desc' } },
      );
      return described(
        request,
        Array.isArray(newest?.messages)
          ? { ...newest, messages: [...newest.messages].reverse() }
          : newest,
      );
    },
  });

  app.get('/secured/notifications/count-messages', {
    ...secured,
    preValidation: queryNormalizer(),
    schema: {
      tags: ['notifications'],
      summary: 'Counts of user notifications (matching `seen` and `filter`) and of system messages',
      security: routeSecurity('user'),
      querystring: Type.Object(
        { seen: Type.Optional(Type.Boolean()), filter: Type.Optional(Type.String()) },
        { additionalProperties: false },
      ),
      response: { 200: Counts },
    },
    handler: async (request) => {
      const query = request.query as { seen?: boolean; filter?: string };
      return countMessages(forwarder, request, {
        seen: query.seen === undefined ? undefined : String(query.seen),
        filter: query.filter || undefined,
      });
    },
  });

  // Mark-all routes take any JSON object, or nothing at all; the user is always the caller.
  await app.register(async (markAll) => {
    markAll.removeAllContentTypeParsers();
    markAll.addContentTypeParser('*', { parseAs: 'string' }, (_request, text, done) => {
      try {
        const body = (text as string).trim() === '' ? {} : parseJsonText(text as string);
        if (typeof body !== 'object' || body === null || Array.isArray(body))
          throw gatewayError(
            'ERR_BAD_OR_MISSING_FIELD',
            'the body must be a JSON object (or empty)',
          );
        done(null, body);
      } catch (error) {
        done(error as Error);
      }
    });
    const markAllRoute = (url: string, agentPath: string, summary: string) =>
      markAll.post(url, {
        ...secured,
        schema: {
          tags: ['notifications'],
          summary,
          security: routeSecurity('user'),
          // Read as JSON whatever its content type (the parser above).
          consumes: anyTypeAsJson,
          body: Type.Optional(Json),
          response: { 200: Count },
        },
        // No body at all never reaches the parser, and the body schema is checked even then: it is `{}`.
        preValidation: async (request) => {
          if (request.body === undefined) request.body = {};
        },
        handler: async (request) =>
          agentJson(forwarder, request, 'POST', agentPath, {
            json: {
              ...((request.body as object | undefined) ?? {}),
              user: request.identity!.username,
            },
          }),
      });
    markAllRoute(
      '/secured/notifications/mark-all-seen',
      '/mark-all-seen',
      'Mark all notifications as seen; answers `{count}` still unseen',
    );
    markAllRoute(
      '/secured/notifications/system/mark-all-received',
      '/system/mark-all-received',
      'Mark all active system messages as received; answers `{count}` still new',
    );
    markAllRoute(
      '/secured/notifications/system/mark-all-seen',
      '/system/mark-all-seen',
      'Mark all active system messages as seen; answers `{count}` still unseen',
    );
  });

  const allowed = allowList(deps.config.notifications.sendAllow);
  app.post('/send-notification', {
    config: { auth: 'none' },
    ...documentedNotEnforced,
    schema: {
      tags: ['notifications'],
      summary:
        'Send a user a notification (unsecured, from SEND_NOTIFICATION_ALLOW addresses only)',
      description:
        'Callers outside SEND_NOTIFICATION_ALLOW (default loopback) get 403 `ERR_FORBIDDEN`. Answers the recorded notification when the agent gives it.',
      security: routeSecurity('none'),
      body: notificationRequest,
      response: { 200: Type.Unknown() },
    },
    // Checked before the body is read or validated: strangers learn nothing about the expected shape.
    onRequest: async (request) => {
      if (!allowed(request.ip))
        throw gatewayError(
          'ERR_FORBIDDEN',
          'POST /send-notification is accepted only from the addresses in SEND_NOTIFICATION_ALLOW',
        );
    },
    handler: async (request, reply: FastifyReply) =>
      forwarder.forward(request, reply, 'notification-agent', {
        method: 'POST',
        path: '/notification',
        rawQuery: '',
        identityStyle: 'none',
        json: request.body,
        bodyLimitBytes: deps.config.bodyLimitBytes,
      }),
  });
}

/** The listings, counts and sends, and (in a context of its own) the event stream. */
export async function notificationRoutes(
  app: FastifyInstance,
  deps: NotificationDeps,
): Promise<void> {
  await app.register(aggregatedNotificationRoutes, deps);
  await app.register(notificationStreamRoutes, deps);
}
