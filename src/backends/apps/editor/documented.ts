// What the editor room's routes (app edits, the editor's views, copies, publication,
// administrators' app edits, elements, integration data) take and answer, for the OpenAPI document:
// documentation only (the service's documented.ts composes the rooms' tables and says how they were
// recorded).
import {
  loose,
  requiringAll,
  type DocumentedSchemas,
  type JsonSchema,
} from '../../../common/documented-schemas.ts';
import {
  listedAppProperties,
  pipelineEligibility,
  rating,
  adminAppDetailsProperties,
  appToolDetail,
  appVersion,
  jobStats,
  appDocumentation,
  htcondorExtra,
  looseLimitChecks,
  appTool,
  looseAppVersion,
  parameterGroup,
  appDefinitionProperties,
  looseAppDefinitionProperties,
  appTaskProperties,
  appJobViewProperties,
  appJobView,
  uiParameterGroup,
  savedApp,
  elementType,
  unreadOptionalBody,
} from '../shared/index.ts';

const editedDocumentation: JsonSchema = {
  type: 'object',
  properties: {
    app_id: { type: 'string' },
    version_id: { type: 'string' },
    documentation: { type: 'string' },
    references: { type: 'array', items: {} },
  },
};

const savedDocumentation = loose(appDocumentation);

const documentationBody: JsonSchema = {
  type: 'object',
  properties: {
    documentation: { type: 'string' },
    references: { type: 'array', items: { type: 'string' } },
  },
};

const integrationDataProperties = {
  id: { type: 'string' },
  integrator_name: { type: 'string' },
  integrator_email: { type: 'string' },
} satisfies Record<string, JsonSchema>;

const integrationData: JsonSchema = { type: 'object', properties: integrationDataProperties };

/** A listed app's properties as the editor answers them: its objects' fields none required. */
const looseDetailedAppProperties: Record<string, JsonSchema> = {
  ...listedAppProperties,
  pipeline_eligibility: loose(pipelineEligibility),
  rating: loose(rating),
  limitChecks: looseLimitChecks,
};

const blessedApp: JsonSchema = { type: 'object', properties: looseDetailedAppProperties };

/**
 * The administrators' details of an app as their version routes answer them: no field claimed
 * required, the listing's objects loose, the references and documentation as edited.
 */
const adminAppVersionDetails: JsonSchema = {
  type: 'object',
  properties: {
    ...adminAppDetailsProperties,
    ...looseDetailedAppProperties, // over the listing's fields, each where it stands
    references: { type: 'array', items: {} },
    versions: { type: 'array', items: looseAppVersion },
    job_stats: loose(jobStats),
    documentation: editedDocumentation,
  },
};

const appIds: JsonSchema = {
  type: 'object',
  properties: { app_ids: { type: 'array', items: { type: 'string' } } },
};

const parameterGroupBody: JsonSchema = {
  type: 'object',
  properties: { label: { type: 'string' }, parameters: { type: 'array', items: {} } },
};

/** The editor's own parts of an app's definition: its tools and their parameter groups. */
const editedAppParts = {
  references: { type: 'array', items: {} },
  tools: { type: 'array', items: appTool },
  requirements: { type: 'array', items: {} },
  groups: { type: 'array', items: parameterGroup },
} satisfies Record<string, JsonSchema>;

const appDefinition: JsonSchema = {
  type: 'object',
  properties: { ...looseAppDefinitionProperties, ...editedAppParts },
};

const appIntegrationData: JsonSchema = {
  type: 'object',
  properties: { ...integrationDataProperties, user: { type: 'string' } },
};

const appTools: JsonSchema = {
  type: 'object',
  properties: { tools: { type: 'array', items: appTool } },
};

const newAppVersion: JsonSchema = {
  type: 'object',
  properties: { ...appDefinitionProperties, ...editedAppParts },
};

/** An app's tasks, each as `task`. */
const appTasksProperties = (task: JsonSchema): Record<string, JsonSchema> => ({
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  version_id: { type: 'string' },
  tasks: { type: 'array', items: task },
});

/** What a publication request and its answer say first. */
const publicationRequestProperties = {
  id: { type: 'string' },
  app_id: { type: 'string' },
  system_id: { type: 'string' },
  app_name: { type: 'string' },
  requestor: { type: 'string' },
  requested_on: { type: 'string' },
  completed: { type: 'boolean' },
} satisfies Record<string, JsonSchema>;

/** An app sketched as the editor sends it to save or to preview: its name, tools and groups. */
const sketchedAppProperties = {
  name: { type: 'string' },
  tools: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
  groups: { type: 'array', items: parameterGroupBody },
} satisfies Record<string, JsonSchema>;

const deletedId: JsonSchema = { type: 'object', properties: { id: { type: 'string' } } };

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'PATCH /admin/apps/{system-id}/{app-id}/documentation': {
    response: { '200': editedDocumentation },
    body: { type: 'object', properties: { documentation: { type: 'string' } } },
  },
  'POST /admin/apps/{system-id}/{app-id}/versions/{version-id}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'PUT /admin/apps/{system-id}/{app-id}/versions/{version-id}/integration-data/{data-id}': {
    response: { '200': integrationData },
    noBody: true,
  },
  'DELETE /admin/apps/{systemId}/{appId}': { response: { '200': deletedId } },
  'PATCH /admin/apps/{systemId}/{appId}': {
    response: {
      // The administrators' details, its tools' fields claimed.
      '200': requiringAll({
        ...adminAppDetailsProperties,
        tools: { type: 'array', items: appToolDetail },
      }),
    },
    body: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        description: { type: 'string' },
        disabled: { type: 'boolean' },
        extra: htcondorExtra,
        deleted: { type: 'boolean' },
      },
    },
  },
  'DELETE /admin/apps/{systemId}/{appId}/blessing': { response: { '200': blessedApp } },
  'POST /admin/apps/{systemId}/{appId}/blessing': { response: { '200': blessedApp }, noBody: true },
  'POST /admin/apps/{systemId}/{appId}/documentation': {
    response: { '200': editedDocumentation },
    body: { type: 'object', properties: { documentation: { type: 'string' } } },
  },
  'PUT /admin/apps/{systemId}/{appId}/integration-data/{dataId}': {
    response: { '200': integrationData },
    noBody: true,
  },
  'POST /admin/apps/{systemId}/{appId}/publish': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ...looseDetailedAppProperties,
          publication_request_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    body: unreadOptionalBody, // bodiless (clients.md)
  },
  'PATCH /admin/apps/{systemId}/{appId}/versions/{versionId}': {
    response: { '200': adminAppVersionDetails },
    body: { type: 'object', properties: { version: { type: 'string' }, name: { type: 'string' } } },
  },
  'GET /admin/apps/{systemId}/{appId}/versions/{versionId}/details': {
    response: { '200': adminAppVersionDetails },
  },
  'PATCH /admin/apps/{systemId}/{appId}/versions/{versionId}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'GET /admin/apps/publication-requests': {
    response: {
      '200': {
        type: 'object',
        properties: {
          publication_requests: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                ...publicationRequestProperties,
                documentation: {
                  type: 'string',
                  description: 'As the publication request sent it, when it did',
                },
                references: {
                  type: 'array',
                  items: {},
                  description: 'As the publication request sent them, when it did',
                },
                completed_by: { type: 'string' },
                completed_on: { type: 'string' },
                app: {
                  type: 'object',
                  description:
                    'The app and the tools of its current version (the web UI lists them per request)',
                  properties: {
                    id: { type: 'string' },
                    system_id: { type: 'string' },
                    name: { type: 'string' },
                    description: { type: 'string' },
                    integrator_name: { type: 'string' },
                    integrator_email: { type: 'string' },
                    is_public: { type: 'boolean' },
                    version: { type: 'string' },
                    version_id: { type: 'string' },
                    tools: { type: 'array', items: appTool },
                  },
                  required: [
                    'id',
                    'system_id',
                    'name',
                    'integrator_name',
                    'integrator_email',
                    'tools',
                  ],
                },
              },
              required: [...Object.keys(publicationRequestProperties), 'app'],
            },
          },
        },
        required: ['publication_requests'],
      },
    },
  },
  'POST /admin/apps/shredder': { response: { '200': appIds }, body: appIds },
  'GET /admin/integration-data': {
    response: {
      '200': {
        type: 'object',
        properties: {
          integration_data: {
            type: 'array',
            items: requiringAll(integrationDataProperties),
          },
          total: { type: 'integer' },
        },
      },
    },
  },
  'POST /admin/integration-data': {
    response: {
      '200': { ...appIntegrationData, required: Object.keys(integrationDataProperties) },
    },
    body: {
      type: 'object',
      properties: {
        integrator_name: { type: 'string' },
        integrator_email: { type: 'string' },
        user: { type: 'string' },
      },
    },
  },
  'DELETE /admin/integration-data/{dataId}': { response: { '200': deletedId } },
  'GET /admin/integration-data/{dataId}': { response: { '200': integrationData } },
  'PUT /admin/integration-data/{dataId}': {
    response: { '200': integrationData },
    body: {
      type: 'object',
      properties: { integrator_name: { type: 'string' }, integrator_email: { type: 'string' } },
    },
  },
  'PUT /admin/tools/{toolId}/integration-data/{dataId}': {
    response: { '200': integrationData },
    noBody: true,
  },
  'PATCH /apps/{system-id}/{app-id}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'POST /apps/{systemId}': {
    response: { '200': savedApp },
    body: {
      type: 'object',
      properties: { ...sketchedAppProperties, description: { type: 'string' } },
    },
  },
  'DELETE /apps/{systemId}/{appId}': { response: { '200': deletedId } },
  'PATCH /apps/{systemId}/{appId}': {
    response: { '200': appJobView },
    body: {
      type: 'object',
      properties: { description: { type: 'string' }, name: { type: 'string' } },
    },
  },
  'PUT /apps/{systemId}/{appId}': { response: { '200': savedApp }, body: appDefinition },
  'POST /apps/{systemId}/{appId}/copy': {
    response: { '200': appDefinition },
    body: unreadOptionalBody,
  },
  'GET /apps/{systemId}/{appId}/documentation': { response: { '200': appDocumentation } },
  'POST /apps/{systemId}/{appId}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'GET /apps/{systemId}/{appId}/integration-data': { response: { '200': appIntegrationData } },
  'GET /apps/{systemId}/{appId}/is-publishable': {
    response: {
      '200': {
        type: 'object',
        properties: { publishable: { type: 'boolean' }, reason: { type: 'string' } },
        required: ['publishable'],
      },
    },
  },
  'POST /apps/{systemId}/{appId}/publish': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ...publicationRequestProperties,
          documentation: { type: 'string' },
          references: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    body: documentationBody,
  },
  'GET /apps/{systemId}/{appId}/tasks': {
    response: { '200': requiringAll(appTasksProperties(requiringAll(appTaskProperties))) },
  },
  'GET /apps/{systemId}/{appId}/tools': { response: { '200': appTools } },
  'GET /apps/{systemId}/{appId}/ui': {
    response: {
      // The definition whole: every field, its tools' and groups' fields claimed.
      '200': requiringAll({
        ...appDefinitionProperties,
        ...editedAppParts,
        tools: { type: 'array', items: appToolDetail },
        groups: { type: 'array', items: uiParameterGroup },
      }),
    },
  },
  'POST /apps/{systemId}/{appId}/versions': {
    response: {
      '200': {
        type: 'object',
        properties: { ...appJobViewProperties, versions: { type: 'array', items: appVersion } },
      },
    },
    body: appDefinition,
  },
  'PUT /apps/{systemId}/{appId}/versions': {
    response: { '200': newAppVersion },
    body: {
      type: 'object',
      properties: {
        versions: {
          type: 'array',
          items: { type: 'object', properties: { version_id: { type: 'string' } } },
        },
      },
    },
  },
  'DELETE /apps/{systemId}/{appId}/versions/{versionId}': {
    response: {
      '200': {
        type: 'object',
        properties: { id: { type: 'string' }, version_id: { type: 'string' } },
      },
    },
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}': { response: { '200': appJobView } },
  'PATCH /apps/{systemId}/{appId}/versions/{versionId}': {
    response: { '200': appDefinition },
    body: {
      type: 'object',
      properties: {
        version: { type: 'string' },
        name: { type: 'string' },
        groups: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: { type: 'string' },
              label: { type: 'string' },
              parameters: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
  'PUT /apps/{systemId}/{appId}/versions/{versionId}': {
    response: { '200': appDefinition },
    body: appDefinition,
  },
  'POST /apps/{systemId}/{appId}/versions/{versionId}/copy': {
    response: { '200': newAppVersion },
    body: unreadOptionalBody,
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/details': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ...looseDetailedAppProperties,
          tools: { type: 'array', items: appTool },
          references: { type: 'array', items: { type: 'string' } },
          categories: { type: 'array', items: {} },
          suggested_categories: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          job_stats: { type: 'object', properties: { job_count_completed: { type: 'integer' } } },
        },
      },
    },
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/documentation': {
    response: { '200': savedDocumentation },
  },
  'PATCH /apps/{systemId}/{appId}/versions/{versionId}/documentation': {
    response: { '200': editedDocumentation },
    body: { type: 'object', properties: { documentation: { type: 'string' } } },
  },
  'POST /apps/{systemId}/{appId}/versions/{versionId}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/integration-data': {
    response: { '200': appIntegrationData },
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/tasks': {
    response: {
      '200': {
        type: 'object',
        properties: appTasksProperties({ type: 'object', properties: appTaskProperties }),
      },
    },
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/tools': { response: { '200': appTools } },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/ui': { response: { '200': appDefinition } },
  'POST /apps/{systemId}/arg-preview': {
    response: {
      '200': {
        type: 'object',
        properties: {
          params: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                value: { type: 'string' },
                order: { type: 'integer' },
              },
              required: ['name', 'value', 'order'],
            },
          },
        },
      },
    },
    body: { type: 'object', properties: sketchedAppProperties },
  },
  'GET /apps/elements': {
    response: {
      '200': {
        type: 'object',
        properties: {
          parameter_types: { type: 'array', items: elementType },
          tool_types: { type: 'array', items: elementType },
          value_types: { type: 'array', items: elementType },
          info_types: { type: 'array', items: elementType },
          data_sources: { type: 'array', items: elementType },
          file_formats: { type: 'array', items: elementType },
          rule_types: { type: 'array', items: elementType },
        },
      },
    },
  },
  'GET /apps/elements/{type}': {
    response: {
      '200': { type: 'object', properties: { tool_types: { type: 'array', items: elementType } } },
    },
  },
  'POST /apps/shredder': { response: { '200': appIds }, body: appIds },
  'GET /tools/{toolId}/integration-data': { response: { '200': appIntegrationData } },
};
