// What the user-info service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const alertList: JsonSchema = {
  type: 'object',
  properties: {
    alerts: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          start_date: { type: 'string', nullable: true },
          end_date: { type: 'string' },
          alert: { type: 'string' },
        },
        required: ['start_date', 'end_date', 'alert'],
      },
    },
  },
  required: ['alerts'],
};

/** A bag's contents: any JSON object, kept as sent (backends.md §7.4). */
const bagContents: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  description: "The bag's contents: any JSON object, as stored",
};

const bag: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, contents: bagContents, user_id: { type: 'string' } },
  required: ['id', 'contents', 'user_id'],
};

const feedItem: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    feed: { type: 'string' },
    title: { type: 'string' },
    link: { type: 'string' },
    description: { type: 'string' },
    author: { type: 'string' },
    publication_date: { type: 'string' },
    date_added: { type: 'string' },
  },
  required: [
    'id',
    'feed',
    'title',
    'link',
    'description',
    'author',
    'publication_date',
    'date_added',
  ],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /alerts/active': { response: { '200': alertList } },
  'GET /alerts/all': { response: { '200': alertList } },
  'DELETE /bags/{username}': { response: { '200': { type: 'null', description: 'No body' } } },
  'GET /bags/{username}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          bags: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                contents: { type: 'object', additionalProperties: true },
                user_id: { type: 'string' },
              },
              required: ['id', 'contents', 'user_id'],
            },
          },
        },
        required: ['bags'],
      },
    },
  },
  'PUT /bags/{username}': {
    response: {
      '200': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
    body: bagContents,
  },
  'DELETE /bags/{username}/{bag-id}': {
    response: { '200': { type: 'null', description: 'No body' } },
  },
  'GET /bags/{username}/{bagId}': { response: { '200': bag } },
  'POST /bags/{username}/{bagId}': { response: { '200': bag }, body: bagContents },
  'DELETE /bags/{username}/default': { response: { '200': bag } },
  'GET /bags/{username}/default': { response: { '200': bag } },
  'POST /bags/{username}/default': { response: { '200': bag }, body: bagContents },
  'GET /feeds': {
    response: {
      '200': {
        type: 'object',
        properties: {
          news: { type: 'array', items: feedItem },
          events: { type: 'array', items: feedItem },
          videos: { type: 'array', items: {} },
        },
        required: ['news', 'events', 'videos'],
      },
    },
  },
  'POST /feeds/{feed}': {
    response: { '200': feedItem },
    body: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        link: { type: 'string' },
        publication_date: { type: 'string' },
        description: { type: 'string' },
        author: { type: 'string' },
      },
    },
  },
  'DELETE /feeds/items/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'DELETE /searches/{username}': { response: { '200': { type: 'null', description: 'No body' } } },
  'GET /searches/{username}': {
    response: {
      '200': { description: 'The saved searches as stored, any JSON (`{}` when none)' },
    },
  },
  'POST /searches/{username}': {
    body: { description: 'Any JSON, stored as sent' },
    response: {
      '200': { type: 'object', properties: { saved_searches: {} }, required: ['saved_searches'] },
    },
  },
  'DELETE /sessions/{username}': { response: { '200': { type: 'null', description: 'No body' } } },
  'GET /sessions/{username}': {
    response: {
      '200': { description: 'The session document as stored, any JSON (`{}` when none)' },
    },
  },
  // Spec "Session and preferences": an arbitrary JSON document, stored and returned as given.
  'POST /sessions/{username}': {
    response: {
      '200': {
        type: 'object',
        properties: { session: { description: 'The document as stored' } },
        required: ['session'],
      },
    },
    body: { description: 'Any JSON document, stored as sent' },
  },
};
