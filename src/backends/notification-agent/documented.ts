// What the notification-agent service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const systemNotification: JsonSchema = {
  type: 'object',
  properties: {
    uuid: { type: 'string' },
    type: { type: 'string' },
    message: { type: 'string' },
    date_created: { type: 'integer' },
    activation_date: { type: 'integer' },
    deactivation_date: { type: 'integer' },
    dismissible: { type: 'boolean' },
    logins_disabled: { type: 'boolean' },
  },
  required: [
    'uuid',
    'type',
    'message',
    'date_created',
    'activation_date',
    'deactivation_date',
    'dismissible',
    'logins_disabled',
  ],
};

const systemNotificationAnswer: JsonSchema = {
  type: 'object',
  properties: { 'system-notification': systemNotification },
  required: ['system-notification'],
};

const countedSuccess: JsonSchema = {
  type: 'object',
  properties: { success: { type: 'boolean' }, count: { type: 'integer' } },
  required: ['success', 'count'],
};

const notificationIds: JsonSchema = {
  type: 'object',
  properties: { uuids: { type: 'array', items: { type: 'string' } } },
};

const systemMessageCount: JsonSchema = {
  type: 'object',
  properties: { count: { type: 'integer' } },
  required: ['count'],
};

const systemMessages: JsonSchema = {
  type: 'object',
  properties: {
    'system-messages': {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          uuid: { type: 'string' },
          type: { type: 'string' },
          message: { type: 'string' },
          date_created: { type: 'integer' },
          activation_date: { type: 'integer' },
          deactivation_date: { type: 'integer' },
          dismissible: { type: 'boolean' },
          logins_disabled: { type: 'boolean' },
          acknowledged: { type: 'boolean' },
        },
        required: [
          'uuid',
          'type',
          'message',
          'date_created',
          'activation_date',
          'deactivation_date',
          'dismissible',
          'logins_disabled',
          'acknowledged',
        ],
      },
    },
  },
  required: ['system-messages'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /admin/system': {
    response: {
      '200': {
        type: 'object',
        properties: {
          'system-messages': { type: 'array', items: systemNotification },
          total: { type: 'integer' },
        },
        required: ['system-messages', 'total'],
      },
    },
  },
  'PUT /admin/system': {
    response: { '200': systemNotificationAnswer },
    body: {
      type: 'object',
      properties: {
        type: { type: 'string' },
        message: { type: 'string' },
        activation_date: {},
        deactivation_date: {},
        dismissible: { type: 'boolean' },
        logins_disabled: { type: 'boolean' },
      },
    },
  },
  'GET /admin/system-types': {
    response: {
      '200': {
        type: 'object',
        properties: { types: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
  'DELETE /admin/system/{id}': { response: { '200': systemNotificationAnswer } },
  'GET /admin/system/{id}': { response: { '200': systemNotificationAnswer } },
  'POST /admin/system/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          'system-notification': {
            type: 'object',
            properties: {
              uuid: { type: 'string' },
              type: { type: 'string' },
              message: { type: 'string' },
              date_created: { type: 'integer' },
              activation_date: { type: 'integer' },
              deactivation_date: { type: 'integer' },
              dismissible: { type: 'boolean' },
              logins_disabled: { type: 'boolean' },
            },
          },
        },
      },
    },
    body: {
      type: 'object',
      properties: { message: { type: 'string' }, deactivation_date: { type: 'integer' } },
    },
  },
  'POST /delete': { response: { '200': countedSuccess }, body: notificationIds },
  'DELETE /delete-all': { response: { '200': countedSuccess } },
  'POST /seen': { response: { '200': countedSuccess }, body: notificationIds },
  'POST /system/delete': { response: { '200': systemMessageCount }, body: notificationIds },
  'DELETE /system/delete-all': {
    response: { '200': { type: 'object', properties: { count: { type: 'integer' } } } },
  },
  'GET /system/messages': { response: { '200': systemMessages } },
  'GET /system/new-messages': { response: { '200': systemMessages } },
  'POST /system/received': { response: { '200': systemMessageCount }, body: notificationIds },
  'POST /system/seen': { response: { '200': systemMessageCount }, body: notificationIds },
  'GET /system/unseen-messages': { response: { '200': systemMessages } },
};
