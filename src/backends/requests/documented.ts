// What the requests service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const requestType: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    maximum_requests_per_user: { type: 'integer', nullable: true },
    maximum_concurrent_requests_per_user: { type: 'integer', nullable: true },
  },
  required: ['id', 'name', 'maximum_requests_per_user', 'maximum_concurrent_requests_per_user'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /request-types': {
    response: {
      '200': {
        type: 'object',
        properties: { request_types: { type: 'array', items: requestType } },
        required: ['request_types'],
      },
    },
  },
  'GET /request-types/{name}': { response: { '200': requestType } },
  'PATCH /request-types/{name}': { noBody: true, response: { '200': requestType } },
  'POST /request-types/{name}': { noBody: true, response: { '200': requestType } },
  'GET /requests': {
    response: {
      '200': {
        type: 'object',
        properties: {
          requests: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                request_type: { type: 'string' },
                requesting_user: { type: 'string' },
                details: { type: 'object', additionalProperties: true },
                created_date: { type: 'string' },
                status: { type: 'string' },
                updated_date: { type: 'string' },
              },
              required: [
                'id',
                'request_type',
                'requesting_user',
                'details',
                'created_date',
                'status',
                'updated_date',
              ],
            },
          },
        },
        required: ['requests'],
      },
    },
  },
  'GET /requests/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          request_type: { type: 'string' },
          requesting_user: { type: 'string' },
          details: { type: 'object', additionalProperties: true },
          created_date: { type: 'string' },
          status: { type: 'string' },
          updated_date: { type: 'string' },
          updates: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                status: { type: 'string' },
                created_date: { type: 'string' },
                updating_user: { type: 'string' },
                message: { type: 'string', nullable: true },
              },
            },
          },
        },
        required: [
          'id',
          'request_type',
          'requesting_user',
          'details',
          'created_date',
          'status',
          'updated_date',
          'updates',
        ],
      },
    },
  },
};
