// What the pipelines room's routes take and answer, for the OpenAPI document: documentation only
// (the service's documented.ts composes the rooms' tables and says how they were recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import { appVersion, looseAppVersion } from '../shared/index.ts';

const pipelineStepAnswered: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    system_id: { type: 'string' },
    app_type: { type: 'string' },
    task_id: { type: 'string' },
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
    tool_id: { type: 'string' },
  },
  required: [
    'id',
    'name',
    'description',
    'system_id',
    'app_type',
    'task_id',
    'app_id',
    'app_version_id',
    'tool_id',
  ],
};

const pipelineTaskAnswered: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    step_number: { type: 'integer' },
    tool: { type: 'object', additionalProperties: true },
    inputs: { type: 'array', items: {} },
    outputs: { type: 'array', items: {} },
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
  },
  required: [
    'id',
    'name',
    'description',
    'step_number',
    'tool',
    'inputs',
    'outputs',
    'app_id',
    'app_version_id',
  ],
};

const createdPipeline: JsonSchema = {
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
    steps: { type: 'array', items: pipelineStepAnswered },
    mappings: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          source_step: { type: 'integer' },
          target_step: { type: 'integer' },
          map: { type: 'object', additionalProperties: true },
        },
        required: ['source_step', 'target_step', 'map'],
      },
    },
    tasks: { type: 'array', items: pipelineTaskAnswered },
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
    'steps',
    'mappings',
    'tasks',
  ],
};

const pipelineStepBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    task_id: { type: 'string' },
    app_type: { type: 'string' },
  },
};

const pipelineMapping: JsonSchema = {
  type: 'object',
  properties: {
    source_step: { type: 'integer' },
    target_step: { type: 'integer' },
    map: { type: 'object', additionalProperties: true },
  },
};

const updatedPipeline: JsonSchema = {
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
    steps: { type: 'array', items: pipelineStepAnswered },
    mappings: { type: 'array', items: pipelineMapping },
    tasks: { type: 'array', items: pipelineTaskAnswered },
  },
};

const pipelineStep: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    system_id: { type: 'string' },
    app_type: { type: 'string' },
    task_id: { type: 'string' },
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
    tool_id: { type: 'string' },
  },
};

const pipelineTask: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    step_number: { type: 'integer' },
    tool: { type: 'object', additionalProperties: true },
    inputs: { type: 'array', items: {} },
    outputs: { type: 'array', items: {} },
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
  },
};

const pipelineDefinition: JsonSchema = {
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
    steps: { type: 'array', items: pipelineStep },
    mappings: { type: 'array', items: pipelineMapping },
    tasks: { type: 'array', items: pipelineTask },
  },
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'POST /apps/pipelines': {
    response: { '200': createdPipeline },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        steps: { type: 'array', items: pipelineStepBody },
        mappings: { type: 'array', items: pipelineMapping },
      },
    },
  },
  'PUT /apps/pipelines/{appId}': { response: { '200': updatedPipeline }, body: pipelineDefinition },
  'POST /apps/pipelines/{appId}/copy': {
    response: { '200': updatedPipeline },
    // The web UI sends `{}` or nothing: the body is optional and its content unread.
    body: { type: 'object', additionalProperties: true, nullable: true },
  },
  'GET /apps/pipelines/{appId}/ui': { response: { '200': createdPipeline } },
  'POST /apps/pipelines/{appId}/versions': {
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
          versions: { type: 'array', items: looseAppVersion },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          is_public: { type: 'boolean' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          steps: { type: 'array', items: pipelineStep },
          mappings: { type: 'array', items: {} },
          tasks: { type: 'array', items: pipelineTask },
        },
      },
    },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        steps: { type: 'array', items: pipelineStepBody },
        mappings: { type: 'array', items: {} },
        version: { type: 'string' },
      },
    },
  },
  'PUT /apps/pipelines/{appId}/versions/{versionId}': {
    response: { '200': pipelineDefinition },
    body: pipelineDefinition,
  },
  'POST /apps/pipelines/{appId}/versions/{versionId}/copy': {
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
          steps: { type: 'array', items: pipelineStep },
          mappings: { type: 'array', items: pipelineMapping },
          tasks: { type: 'array', items: pipelineTask },
        },
      },
    },
    // The web UI sends `{}` or nothing: the body is optional and its content unread.
    body: { type: 'object', additionalProperties: true, nullable: true },
  },
  'GET /apps/pipelines/{appId}/versions/{versionId}/ui': {
    response: { '200': pipelineDefinition },
  },
};
