// What the search service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas } from '../../common/documented-schemas.ts';

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /data/documentation': {
    response: {
      '200': {
        type: 'object',
        properties: {
          clauses: {
            type: 'object',
            properties: {
              label: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              path: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              owner: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              permissions: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              created: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              modified: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              size: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              infotype: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              metadata: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
              tag: {
                type: 'object',
                properties: {
                  summary: { type: 'string' },
                  args: { type: 'object', additionalProperties: true },
                },
              },
            },
          },
          sortFields: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  'POST /data/search': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          total_relation: { type: 'string', enum: ['eq', 'gte'] },
          hits: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                _id: { type: 'string' },
                _index: { type: 'string' },
                _type: { type: 'string' },
                _score: {},
                _source: { type: 'object', additionalProperties: true },
              },
              required: ['_id', '_index', '_type', '_score', '_source'],
            },
          },
        },
        required: ['total', 'total_relation', 'hits'],
      },
    },
    body: {
      type: 'object',
      properties: {
        query: {
          type: 'object',
          properties: {
            all: { type: 'array', items: { type: 'object', additionalProperties: true } },
            any: { type: 'array', items: { type: 'object', additionalProperties: true } },
            none: { type: 'array', items: { type: 'object', additionalProperties: true } },
          },
        },
        size: { type: 'integer' },
        from: { type: 'integer' },
        track_total_hits: { oneOf: [{ type: 'boolean', enum: [true] }, { type: 'integer' }] },
        sort: {
          type: 'array',
          items: {
            type: 'object',
            properties: { field: { type: 'string' }, order: { type: 'string' } },
          },
        },
      },
    },
  },
};
