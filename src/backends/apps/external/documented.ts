// What the external room's routes (OAuth access codes and tokens, users' webhooks) take and answer,
// for the OpenAPI document: documentation only (the service's documented.ts composes the rooms'
// tables and says how they were recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';

const webhooks: JsonSchema = {
  type: 'object',
  properties: {
    webhooks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          type: { type: 'object', additionalProperties: true },
          topics: { type: 'array', items: {} },
          secret: { type: 'string' },
        },
        required: ['id', 'url', 'type', 'topics', 'secret'],
      },
    },
  },
  required: ['webhooks'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'DELETE /admin/oauth/token-info/{apiName}': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'GET /admin/oauth/token-info/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          access_token: { type: 'string' },
          expires_at: { type: 'integer' },
          refresh_token: { type: 'string' },
          webapp: { type: 'string' },
        },
        required: ['access_token', 'expires_at', 'refresh_token', 'webapp'],
      },
    },
  },
  'GET /oauth/access-code/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: { state_info: { type: 'string' } },
        required: ['state_info'],
      },
    },
  },
  'GET /oauth/redirect-uris': {
    response: { '200': { type: 'object', properties: { extapi: { type: 'string' } } } },
  },
  'DELETE /oauth/token-info/{apiName}': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'GET /oauth/token-info/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: { expires_at: { type: 'integer' }, webapp: { type: 'string' } },
        required: ['expires_at', 'webapp'],
      },
    },
  },
  'GET /webhooks': { response: { '200': webhooks } },
  'PUT /webhooks': {
    response: { '200': webhooks },
    body: {
      type: 'object',
      properties: {
        webhooks: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              url: { type: 'string' },
              type: { type: 'object', additionalProperties: true },
              topics: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
  'GET /webhooks/topics': {
    response: {
      '200': {
        type: 'object',
        properties: {
          topics: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, topic: { type: 'string' } },
              required: ['id', 'topic'],
            },
          },
        },
      },
    },
  },
  'GET /webhooks/types': {
    response: {
      '200': {
        type: 'object',
        properties: {
          webhooktypes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                type: { type: 'string' },
                template: { type: 'string' },
              },
              required: ['id', 'type', 'template'],
            },
          },
        },
      },
    },
  },
};
