// What the metadata service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const ontologyHierarchy: JsonSchema = {
  type: 'object',
  properties: {
    iri: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    subclasses: { type: 'array', items: {} },
  },
  required: ['iri', 'label', 'subclasses'],
};

const metadataTemplateList: JsonSchema = {
  type: 'object',
  properties: {
    metadata_templates: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          deleted: { type: 'boolean' },
          created_by: { type: 'string' },
          created_on: { type: 'string' },
          modified_by: { type: 'string' },
          modified_on: { type: 'string' },
        },
        required: [
          'id',
          'name',
          'deleted',
          'created_by',
          'created_on',
          'modified_by',
          'modified_on',
        ],
      },
    },
  },
  required: ['metadata_templates'],
};

const metadataTemplate: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    deleted: { type: 'boolean' },
    created_by: { type: 'string' },
    created_on: { type: 'string' },
    modified_by: { type: 'string' },
    modified_on: { type: 'string' },
    attributes: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          created_by: { type: 'string' },
          created_on: { type: 'string' },
          modified_by: { type: 'string' },
          modified_on: { type: 'string' },
          synonyms: { type: 'array', items: {} },
          required: { type: 'boolean' },
          type: { type: 'string' },
          attributes: { type: 'array', items: {} },
          values: { type: 'array', items: {} },
        },
        required: [
          'id',
          'name',
          'description',
          'created_by',
          'created_on',
          'modified_by',
          'modified_on',
          'synonyms',
          'required',
          'type',
          'attributes',
        ],
      },
    },
  },
  required: [
    'id',
    'name',
    'description',
    'deleted',
    'created_by',
    'created_on',
    'modified_by',
    'modified_on',
    'attributes',
  ],
};

const tag: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    value: { type: 'string' },
    description: { type: 'string' },
  },
  required: ['id', 'value', 'description'],
};

const tagList: JsonSchema = {
  type: 'object',
  properties: { tags: { type: 'array', items: tag } },
  required: ['tags'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'POST /admin/ontologies': {
    response: {
      '200': {
        type: 'object',
        properties: {
          iri: { type: 'string' },
          version: { type: 'string' },
          created_by: { type: 'string' },
          created_on: { type: 'integer' },
        },
        required: ['iri', 'version', 'created_by', 'created_on'],
      },
    },
    noBody: true,
  },
  'DELETE /admin/ontologies/{version}/{rootIri}': {
    response: {
      '200': {
        type: 'object',
        properties: { hierarchies: { type: 'array', items: ontologyHierarchy } },
      },
    },
  },
  'PUT /admin/ontologies/{version}/{rootIri}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          hierarchy: {
            type: 'object',
            properties: {
              iri: { type: 'string' },
              label: { type: 'string' },
              description: { type: 'string' },
              subclasses: { type: 'array', items: { type: 'object', additionalProperties: true } },
            },
            required: ['iri', 'label', 'subclasses'],
          },
        },
        required: ['hierarchy'],
      },
    },
    noBody: true,
  },
  'GET /admin/templates': { response: { '200': metadataTemplateList } },
  'POST /admin/templates': {
    response: { '200': metadataTemplate },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        attributes: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              description: { type: 'string' },
              type: { type: 'string' },
              required: {},
              values: { type: 'array', items: {} },
              attributes: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
  'DELETE /admin/templates/{template-id}': {
    response: { '204': { type: 'null', description: 'Deleted' } },
  },
  'DELETE /filesystem/data/tags': { response: { '200': { type: 'null', description: 'No body' } } },
  'GET /filesystem/data/tags': {
    response: { '200': { type: 'object', properties: { tags: { type: 'array', items: tag } } } },
  },
  'GET /ontologies/{version}': {
    response: {
      '200': {
        type: 'object',
        properties: { hierarchies: { type: 'array', items: ontologyHierarchy } },
        required: ['hierarchies'],
      },
    },
  },
  'GET /permanent-id-requests/status-codes': {
    response: {
      '200': {
        type: 'object',
        properties: {
          status_codes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
              },
              required: ['id', 'name', 'description'],
            },
          },
        },
        required: ['status_codes'],
      },
    },
  },
  'GET /permanent-id-requests/types': {
    response: {
      '200': {
        type: 'object',
        properties: {
          request_types: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  'GET /tags/suggestions': { response: { '200': tagList } },
  'DELETE /tags/user': { response: { '200': { type: 'null', description: 'No body' } } },
  'GET /tags/user': { response: { '200': tagList } },
  'POST /tags/user': {
    response: {
      '200': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
    body: {
      type: 'object',
      properties: { value: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'DELETE /tags/user/{tag-id}': { response: { '200': { type: 'null', description: 'No body' } } },
  'PATCH /tags/user/{tagId}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          value: { type: 'string' },
          description: { type: 'string' },
        },
      },
    },
    body: { type: 'object', properties: { value: { type: 'string' } } },
  },
  'GET /templates': { response: { '200': metadataTemplateList } },
  'GET /templates/{template-id}/blank-csv': {
    response: {
      '200': { description: 'A CSV file', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
  },
  'GET /templates/{template-id}/guide-csv': {
    response: {
      '200': { description: 'A CSV file', content: { 'text/csv': { schema: { type: 'string' } } } },
    },
  },
  'GET /templates/{template-id}/zip-csv': {
    response: {
      '200': {
        description: 'A zip archive of CSV files',
        content: { 'application/zip': { schema: { type: 'string', format: 'binary' } } },
      },
    },
  },
  'GET /templates/{templateId}': { response: { '200': metadataTemplate } },
  'GET /templates/attr/{attrId}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          created_by: { type: 'string' },
          created_on: { type: 'string' },
          modified_by: { type: 'string' },
          modified_on: { type: 'string' },
          synonyms: { type: 'array', items: {} },
          required: { type: 'boolean' },
          type: { type: 'string' },
          attributes: { type: 'array', items: {} },
        },
        required: [
          'id',
          'name',
          'description',
          'created_by',
          'created_on',
          'modified_by',
          'modified_on',
          'synonyms',
          'required',
          'type',
          'attributes',
        ],
      },
    },
  },
};
