// What the data-info service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas } from '../../common/documented-schemas.ts';

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'POST /anonymizer': {
    response: {
      '200': {
        type: 'object',
        properties: {
          user: { type: 'string' },
          paths: { type: 'object', additionalProperties: { type: 'string' } },
        },
        required: ['user', 'paths'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /data/directories': {
    response: {
      '200': {
        type: 'object',
        properties: { paths: { type: 'array', items: { type: 'string' } } },
        required: ['paths'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /deleter': {
    response: {
      '200': {
        type: 'object',
        properties: {
          paths: { type: 'array', items: { type: 'string' } },
          'trash-paths': { type: 'object', additionalProperties: { type: 'string' } },
          'async-task-id': { type: 'string' },
        },
        required: ['paths', 'trash-paths', 'async-task-id'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /existence-marker': {
    response: {
      '200': {
        type: 'object',
        properties: { paths: { type: 'object', additionalProperties: { type: 'boolean' } } },
        required: ['paths'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'GET /file-types': {
    response: {
      '200': {
        type: 'object',
        properties: { types: { type: 'array', items: { type: 'string' } } },
        required: ['types'],
      },
    },
  },
  'POST /mover': {
    response: {
      '200': {
        type: 'object',
        properties: {
          user: { type: 'string' },
          sources: { type: 'array', items: { type: 'string' } },
          dest: { type: 'string' },
          'async-task-id': { type: 'string' },
        },
        required: ['user', 'sources', 'dest', 'async-task-id'],
      },
    },
    body: {
      type: 'object',
      properties: {
        sources: { type: 'array', items: { type: 'string' } },
        dest: { type: 'string' },
      },
    },
  },
  'POST /path-list-creator': {
    response: {
      '200': {
        type: 'object',
        properties: {
          file: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              path: { type: 'string' },
              type: { type: 'string' },
              label: { type: 'string' },
              'date-created': { type: 'integer' },
              'date-modified': { type: 'integer' },
              permission: { type: 'string' },
              'share-count': { type: 'integer' },
              'file-size': { type: 'integer' },
              md5: { type: 'string' },
              'content-type': { type: 'string' },
              infoType: { type: 'string' },
            },
            required: [
              'id',
              'path',
              'type',
              'label',
              'date-created',
              'date-modified',
              'permission',
              'share-count',
              'file-size',
              'md5',
              'content-type',
              'infoType',
            ],
          },
        },
        required: ['file'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /permissions-gatherer': {
    response: {
      '200': {
        type: 'object',
        properties: {
          paths: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                path: { type: 'string' },
                'user-permissions': { type: 'array', items: {} },
              },
              required: ['path', 'user-permissions'],
            },
          },
        },
        required: ['paths'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /restorer': {
    response: {
      '200': {
        type: 'object',
        properties: {
          restored: {
            type: 'object',
            additionalProperties: {
              type: 'object',
              properties: {
                'restored-path': { type: 'string' },
                'partial-restore': { type: 'boolean' },
              },
              required: ['restored-path', 'partial-restore'],
            },
          },
          'async-task-id': { type: 'string' },
        },
        required: ['restored', 'async-task-id'],
      },
    },
    body: {},
  },
  'POST /ticket-deleter': {
    response: {
      '200': {
        type: 'object',
        properties: {
          user: { type: 'string' },
          tickets: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    body: { type: 'object', properties: { tickets: { type: 'array', items: { type: 'string' } } } },
  },
  'GET /ticket-downloads/{ticketId}/info': {
    response: {
      '200': {
        type: 'object',
        properties: {
          'ticket-id': { type: 'string' },
          path: { type: 'string' },
          label: { type: 'string' },
          type: { type: 'string' },
          'file-size': { type: 'integer' },
          'download-url': { type: 'string' },
        },
        required: ['ticket-id', 'path', 'label', 'type', 'file-size', 'download-url'],
      },
    },
  },
  'POST /ticket-lister': {
    response: {
      '200': {
        type: 'object',
        properties: {
          tickets: {
            type: 'object',
            additionalProperties: {
              type: 'array',
              items: { type: 'object', additionalProperties: true },
            },
          },
        },
        required: ['tickets'],
      },
    },
    body: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } } },
  },
};
