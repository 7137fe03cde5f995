// What the editor room's routes (app edits, the editor's views, copies, publication,
// administrators' app edits, elements, integration data) take and answer, for the OpenAPI document:
// documentation only (the service's documented.ts composes the rooms' tables and says how they were
// recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import {
  versionedAppRequired,
  pipelineEligibility,
  rating,
  limitChecks,
  appToolDetail,
  appVersion,
  jobStats,
  appDocumentation,
  htcondorExtra,
  looseLimitChecks,
  appTool,
  looseAppVersion,
  parameterGroup,
  appJobView,
  uiParameterGroup,
  savedApp,
  elementType,
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

const savedDocumentation: JsonSchema = {
  type: 'object',
  properties: {
    app_id: { type: 'string' },
    version_id: { type: 'string' },
    documentation: { type: 'string' },
    references: { type: 'array', items: { type: 'string' } },
  },
};

const documentationBody: JsonSchema = {
  type: 'object',
  properties: {
    documentation: { type: 'string' },
    references: { type: 'array', items: { type: 'string' } },
  },
};

const integrationData: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
  },
};

const loosePipelineEligibility: JsonSchema = {
  type: 'object',
  properties: { is_valid: { type: 'boolean' }, reason: { type: 'string' } },
};

const looseRating: JsonSchema = {
  type: 'object',
  properties: { average: { type: 'integer' }, total: { type: 'integer' } },
};

const blessedApp: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    app_type: { type: 'string' },
    version: { type: 'string' },
    version_id: { type: 'string' },
    system_id: { type: 'string' },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    integration_date: { type: 'string' },
    edited_date: { type: 'string' },
    deleted: { type: 'boolean' },
    disabled: { type: 'boolean' },
    beta: { type: 'boolean' },
    is_public: { type: 'boolean' },
    isBlessed: { type: 'boolean' },
    is_favorite: { type: 'boolean' },
    can_favor: { type: 'boolean' },
    can_rate: { type: 'boolean' },
    can_run: { type: 'boolean' },
    step_count: { type: 'integer' },
    overall_job_type: { type: 'string' },
    permission: { type: 'string' },
    pipeline_eligibility: loosePipelineEligibility,
    rating: looseRating,
    limitChecks: looseLimitChecks,
  },
};

const adminAppVersionDetails: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    app_type: { type: 'string' },
    version: { type: 'string' },
    version_id: { type: 'string' },
    system_id: { type: 'string' },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    integration_date: { type: 'string' },
    edited_date: { type: 'string' },
    deleted: { type: 'boolean' },
    disabled: { type: 'boolean' },
    beta: { type: 'boolean' },
    is_public: { type: 'boolean' },
    isBlessed: { type: 'boolean' },
    is_favorite: { type: 'boolean' },
    can_favor: { type: 'boolean' },
    can_rate: { type: 'boolean' },
    can_run: { type: 'boolean' },
    step_count: { type: 'integer' },
    overall_job_type: { type: 'string' },
    permission: { type: 'string' },
    pipeline_eligibility: loosePipelineEligibility,
    rating: looseRating,
    limitChecks: looseLimitChecks,
    tools: { type: 'array', items: appTool },
    references: { type: 'array', items: {} },
    categories: { type: 'array', items: {} },
    suggested_categories: { type: 'array', items: {} },
    versions: { type: 'array', items: looseAppVersion },
    job_stats: {
      type: 'object',
      properties: {
        job_count: { type: 'integer' },
        job_count_completed: { type: 'integer' },
        job_count_failed: { type: 'integer' },
      },
    },
    documentation: editedDocumentation,
    extra: htcondorExtra,
    hierarchies: { type: 'array', items: {} },
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

const appDefinition: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    system_id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    version_id: { type: 'string' },
    versions: { type: 'array', items: looseAppVersion },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    integration_date: { type: 'string' },
    edited_date: { type: 'string' },
    is_public: { type: 'boolean' },
    deleted: { type: 'boolean' },
    disabled: { type: 'boolean' },
    references: { type: 'array', items: {} },
    tools: { type: 'array', items: appTool },
    requirements: { type: 'array', items: {} },
    groups: { type: 'array', items: parameterGroup },
  },
};

const appIntegrationData: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    user: { type: 'string' },
  },
};

const appTools: JsonSchema = {
  type: 'object',
  properties: { tools: { type: 'array', items: appTool } },
};

const newAppVersion: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    system_id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    version_id: { type: 'string' },
    versions: { type: 'array', items: appVersion },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    integration_date: { type: 'string' },
    edited_date: { type: 'string' },
    is_public: { type: 'boolean' },
    deleted: { type: 'boolean' },
    disabled: { type: 'boolean' },
    references: { type: 'array', items: {} },
    tools: { type: 'array', items: appTool },
    requirements: { type: 'array', items: {} },
    groups: { type: 'array', items: parameterGroup },
  },
};

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
  'DELETE /admin/apps/{systemId}/{appId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'PATCH /admin/apps/{systemId}/{appId}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          system_id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          beta: { type: 'boolean' },
          is_public: { type: 'boolean' },
          isBlessed: { type: 'boolean' },
          is_favorite: { type: 'boolean' },
          can_favor: { type: 'boolean' },
          can_rate: { type: 'boolean' },
          can_run: { type: 'boolean' },
          step_count: { type: 'integer' },
          overall_job_type: { type: 'string' },
          permission: { type: 'string' },
          pipeline_eligibility: pipelineEligibility,
          rating,
          limitChecks,
          tools: { type: 'array', items: appToolDetail },
          references: { type: 'array', items: { type: 'string' } },
          categories: { type: 'array', items: {} },
          suggested_categories: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          job_stats: jobStats,
          documentation: appDocumentation,
          extra: htcondorExtra, // any JSON object an administrator set
          hierarchies: { type: 'array', items: {} },
        },
        required: [
          ...versionedAppRequired,
          'tools',
          'references',
          'categories',
          'suggested_categories',
          'versions',
          'job_stats',
          'documentation',
          'extra',
          'hierarchies',
        ],
      },
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
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          system_id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          beta: { type: 'boolean' },
          is_public: { type: 'boolean' },
          isBlessed: { type: 'boolean' },
          is_favorite: { type: 'boolean' },
          can_favor: { type: 'boolean' },
          can_rate: { type: 'boolean' },
          can_run: { type: 'boolean' },
          step_count: { type: 'integer' },
          overall_job_type: { type: 'string' },
          permission: { type: 'string' },
          pipeline_eligibility: loosePipelineEligibility,
          rating: looseRating,
          limitChecks: looseLimitChecks,
          publication_request_ids: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    // Bodiless (clients.md): the web UI sends `{}` or nothing.
    body: { type: 'object', additionalProperties: true, nullable: true },
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
                id: { type: 'string' },
                app_id: { type: 'string' },
                system_id: { type: 'string' },
                app_name: { type: 'string' },
                requestor: { type: 'string' },
                requested_on: { type: 'string' },
                completed: { type: 'boolean' },
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
              required: [
                'id',
                'app_id',
                'system_id',
                'app_name',
                'requestor',
                'requested_on',
                'completed',
                'app',
              ],
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
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                integrator_name: { type: 'string' },
                integrator_email: { type: 'string' },
              },
              required: ['id', 'integrator_name', 'integrator_email'],
            },
          },
          total: { type: 'integer' },
        },
      },
    },
  },
  'POST /admin/integration-data': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          user: { type: 'string' },
        },
        required: ['id', 'integrator_name', 'integrator_email'],
      },
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
  'DELETE /admin/integration-data/{dataId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
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
      properties: {
        name: { type: 'string' },
        tools: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
        groups: { type: 'array', items: parameterGroupBody },
        description: { type: 'string' },
      },
    },
  },
  'DELETE /apps/{systemId}/{appId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
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
    // The web UI sends `{}` or nothing: the body is optional and its content unread.
    body: { type: 'object', additionalProperties: true, nullable: true },
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
          id: { type: 'string' },
          app_id: { type: 'string' },
          system_id: { type: 'string' },
          app_name: { type: 'string' },
          requestor: { type: 'string' },
          requested_on: { type: 'string' },
          completed: { type: 'boolean' },
          documentation: { type: 'string' },
          references: { type: 'array', items: { type: 'string' } },
        },
      },
    },
    body: documentationBody,
  },
  'GET /apps/{systemId}/{appId}/tasks': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          version_id: { type: 'string' },
          tasks: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                step_number: { type: 'integer' },
                tool: { type: 'object', additionalProperties: true },
                inputs: { type: 'array', items: {} },
                outputs: { type: 'array', items: {} },
              },
              required: ['id', 'name', 'description', 'step_number', 'tool', 'inputs', 'outputs'],
            },
          },
        },
        required: ['id', 'name', 'description', 'version_id', 'tasks'],
      },
    },
  },
  'GET /apps/{systemId}/{appId}/tools': { response: { '200': appTools } },
  'GET /apps/{systemId}/{appId}/ui': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          system_id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          versions: { type: 'array', items: appVersion },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          is_public: { type: 'boolean' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          references: { type: 'array', items: {} },
          tools: { type: 'array', items: appToolDetail },
          requirements: { type: 'array', items: {} },
          groups: { type: 'array', items: uiParameterGroup },
        },
        required: [
          'id',
          'system_id',
          'name',
          'description',
          'version',
          'version_id',
          'versions',
          'integrator_name',
          'integrator_email',
          'integration_date',
          'edited_date',
          'is_public',
          'deleted',
          'disabled',
          'references',
          'tools',
          'requirements',
          'groups',
        ],
      },
    },
  },
  'POST /apps/{systemId}/{appId}/versions': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          label: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          system_id: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          debug: { type: 'boolean' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          overall_job_type: { type: 'string' },
          requirements: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          limitChecks: looseLimitChecks,
          groups: { type: 'array', items: parameterGroup },
        },
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
    // The web UI sends `{}` or nothing: the body is optional and its content unread.
    body: { type: 'object', additionalProperties: true, nullable: true },
  },
  'GET /apps/{systemId}/{appId}/versions/{versionId}/details': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          system_id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          beta: { type: 'boolean' },
          is_public: { type: 'boolean' },
          isBlessed: { type: 'boolean' },
          is_favorite: { type: 'boolean' },
          can_favor: { type: 'boolean' },
          can_rate: { type: 'boolean' },
          can_run: { type: 'boolean' },
          step_count: { type: 'integer' },
          overall_job_type: { type: 'string' },
          permission: { type: 'string' },
          pipeline_eligibility: loosePipelineEligibility,
          rating: looseRating,
          limitChecks: looseLimitChecks,
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
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          version_id: { type: 'string' },
          tasks: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                step_number: { type: 'integer' },
                tool: { type: 'object', additionalProperties: true },
                inputs: { type: 'array', items: {} },
                outputs: { type: 'array', items: {} },
              },
            },
          },
        },
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
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        tools: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' } } } },
        groups: { type: 'array', items: parameterGroupBody },
      },
    },
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
