// What the sharing room's routes (sharing apps, analyses and tools) take and answer, for the
// OpenAPI document: documentation only (the service's documented.ts composes the rooms' tables and
// says how they were recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import { analysisSelection } from '../shared/index.ts';

const appSharingRequest: JsonSchema = {
  type: 'object',
  properties: {
    subject: { type: 'object', additionalProperties: true },
    apps: { type: 'array', items: {} },
  },
};

const appSharing: JsonSchema = {
  type: 'object',
  properties: { sharing: { type: 'array', items: appSharingRequest } },
};

const appUnsharing: JsonSchema = {
  type: 'object',
  properties: { unsharing: { type: 'array', items: appSharingRequest } },
};

const resourcePermissions: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    permissions: { type: 'array', items: {} },
  },
};

const analysisSharingRequest: JsonSchema = {
  type: 'object',
  properties: {
    subject: { type: 'object', additionalProperties: true },
    analyses: { type: 'array', items: {} },
  },
};

const analysisUnsharing: JsonSchema = {
  type: 'object',
  properties: { unsharing: { type: 'array', items: analysisSharingRequest } },
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'POST /admin/apps/sharing': { response: { '200': appSharing }, body: appSharing },
  'POST /admin/apps/unsharing': { response: { '200': appUnsharing }, body: appUnsharing },
  'POST /analyses/permission-lister': {
    response: {
      '200': {
        type: 'object',
        properties: { analyses: { type: 'array', items: resourcePermissions } },
      },
    },
    body: analysisSelection,
  },
  'POST /analyses/sharing': {
    response: {
      '200': {
        type: 'object',
        properties: {
          sharing: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                subject: { type: 'object', additionalProperties: true },
                analyses: { type: 'array', items: {} },
              },
              required: ['subject', 'analyses'],
            },
          },
        },
        required: ['sharing'],
      },
    },
    body: {
      type: 'object',
      properties: { sharing: { type: 'array', items: analysisSharingRequest } },
    },
  },
  'POST /analyses/unsharing': { response: { '200': analysisUnsharing }, body: analysisUnsharing },
  'POST /apps/permission-lister': {
    response: {
      '200': {
        type: 'object',
        properties: {
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                app_id: { type: 'string' },
                name: { type: 'string' },
                permissions: { type: 'array', items: {} },
              },
              required: ['system_id', 'app_id', 'name', 'permissions'],
            },
          },
        },
        required: ['apps'],
      },
    },
    body: {
      type: 'object',
      properties: {
        apps: {
          type: 'array',
          items: {
            type: 'object',
            properties: { system_id: { type: 'string' }, app_id: { type: 'string' } },
          },
        },
      },
    },
  },
  'POST /apps/sharing': {
    response: {
      '200': {
        type: 'object',
        properties: {
          sharing: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                subject: { type: 'object', additionalProperties: true },
                apps: { type: 'array', items: {} },
              },
              required: ['subject', 'apps'],
            },
          },
        },
        required: ['sharing'],
      },
    },
    body: appSharing,
  },
  'POST /apps/unsharing': { response: { '200': appUnsharing }, body: appUnsharing },
  'POST /tools/permission-lister': {
    response: {
      '200': {
        type: 'object',
        properties: { tools: { type: 'array', items: resourcePermissions } },
      },
    },
    body: { type: 'object', properties: { tools: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /tools/sharing': {
    response: {
      '200': {
        type: 'object',
        properties: {
          sharing: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                subject: { type: 'object', additionalProperties: true },
                tools: { type: 'array', items: {} },
              },
              required: ['subject', 'tools'],
            },
          },
        },
        required: ['sharing'],
      },
    },
    body: {
      type: 'object',
      properties: {
        sharing: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              subject: { type: 'object', additionalProperties: true },
              tools: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
};
