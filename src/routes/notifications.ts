// Tags: notifications, misc (alerts).
import { Type } from 'typebox';
import type { PassthroughRoute } from '../http/passthrough.js';

/** `{uuids: [message.id]}`: the body of every mark or delete call. */
const messageIds = Type.Object({ uuids: Type.Array(Type.String({ minLength: 1 })) });

/** The notification request of routes.md §2; the agent fills in the rest. */
const notificationRequest = Type.Object({
  type: Type.String({ minLength: 1 }),
  user: Type.String({ minLength: 1 }),
  subject: Type.String({ minLength: 1 }),
  message: Type.Optional(Type.String()),
  email: Type.Optional(Type.Boolean()),
  email_template: Type.Optional(Type.String()),
  payload: Type.Optional(Type.Object({})),
});

export const notificationsRoutes: PassthroughRoute[] = [
  { method: 'GET', path: '/secured/notifications/unseen-messages', backend: 'notification-agent', backendPath: '/unseen-messages', tag: 'notifications', summary: 'List unseen notifications' },
  { method: 'POST', path: '/secured/notifications/seen', backend: 'notification-agent', backendPath: '/seen', body: messageIds, tag: 'notifications', summary: 'Mark notifications as seen' },
  { method: 'POST', path: '/secured/notifications/delete', backend: 'notification-agent', backendPath: '/delete', body: messageIds, tag: 'notifications', summary: 'Delete notifications' },
  { method: 'DELETE', path: '/secured/notifications/delete-all', backend: 'notification-agent', backendPath: '/delete-all', tag: 'notifications', summary: 'Delete all notifications' },
  { method: 'POST', path: '/send-notification', backend: 'notification-agent', backendPath: '/notification', auth: 'none', identity: 'none', body: notificationRequest, tag: 'notifications', summary: 'Send a notification' },
  { method: 'GET', path: '/alerts/all', backend: 'user-info', auth: 'optional', tag: 'misc', summary: 'List all global alerts' },
  { method: 'GET', path: '/alerts/active', backend: 'user-info', auth: 'optional', tag: 'misc', summary: 'List active global alerts' },
  { method: 'GET', path: '/secured/notifications/system/messages', backend: 'notification-agent', backendPath: '/system/messages', tag: 'notifications', summary: 'List active system messages' },
  { method: 'GET', path: '/secured/notifications/system/new-messages', backend: 'notification-agent', backendPath: '/system/new-messages', tag: 'notifications', summary: 'List system messages not yet received' },
  { method: 'GET', path: '/secured/notifications/system/unseen-messages', backend: 'notification-agent', backendPath: '/system/unseen-messages', tag: 'notifications', summary: 'List system messages not yet seen' },
  { method: 'POST', path: '/secured/notifications/system/received', backend: 'notification-agent', backendPath: '/system/received', body: messageIds, tag: 'notifications', summary: 'Mark system messages as received' },
  { method: 'POST', path: '/secured/notifications/system/seen', backend: 'notification-agent', backendPath: '/system/seen', body: messageIds, tag: 'notifications', summary: 'Mark system messages as seen' },
  { method: 'POST', path: '/secured/notifications/system/delete', backend: 'notification-agent', backendPath: '/system/delete', body: messageIds, tag: 'notifications', summary: 'Dismiss system messages' },
  { method: 'DELETE', path: '/secured/notifications/system/delete-all', backend: 'notification-agent', backendPath: '/system/delete-all', tag: 'notifications', summary: 'Dismiss all dismissible system messages' },
  { method: ['PUT', 'GET'], path: '/admin/notifications/system', backend: 'notification-agent', backendPath: '/admin/system', auth: 'admin', tag: 'notifications', summary: 'Create or list system messages' },
  { method: ['GET', 'POST', 'DELETE'], path: '/admin/notifications/system/{uuid}', backend: 'notification-agent', backendPath: '/admin/system/{uuid}', auth: 'admin', tag: 'notifications', summary: 'Get, update or delete a system message' },
  { method: 'GET', path: '/admin/notifications/system-types', backend: 'notification-agent', backendPath: '/admin/system-types', auth: 'admin', tag: 'notifications', summary: 'List system message types' },
];
