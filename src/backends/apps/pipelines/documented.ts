// What the pipelines room's routes take and answer, for the OpenAPI document: documentation only
// (the service's documented.ts composes the rooms' tables and says how they were recorded).
import {
  loose,
  requiringAll,
  type DocumentedSchemas,
  type JsonSchema,
} from '../../../common/documented-schemas.ts';
import {
  appDefinitionProperties,
  appTaskProperties,
  looseAppDefinitionProperties,
  unreadOptionalBody,
} from '../shared/index.ts';

const pipelineStepAnswered = requiringAll({
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  system_id: { type: 'string' },
  app_type: { type: 'string' },
  task_id: { type: 'string' },
  app_id: { type: 'string' },
  app_version_id: { type: 'string' },
  tool_id: { type: 'string' },
});

const pipelineStep = loose(pipelineStepAnswered);

/** A pipeline's task: an app's task, with the app (and its version) it is of. */
const pipelineTaskAnswered = requiringAll({
  ...appTaskProperties,
  app_id: { type: 'string' },
  app_version_id: { type: 'string' },
});

const pipelineTask = loose(pipelineTaskAnswered);

const pipelineMappingAnswered = requiringAll({
  source_step: { type: 'integer' },
  target_step: { type: 'integer' },
  map: { type: 'object', additionalProperties: true },
});

const pipelineMapping = loose(pipelineMappingAnswered);

const createdPipeline = requiringAll({
  ...appDefinitionProperties,
  steps: { type: 'array', items: pipelineStepAnswered },
  mappings: { type: 'array', items: pipelineMappingAnswered },
  tasks: { type: 'array', items: pipelineTaskAnswered },
});

const pipelineStepBody: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    task_id: { type: 'string' },
    app_type: { type: 'string' },
  },
};

/** A pipeline as the pipeline editor sends it to make one or a version: its name and steps. */
const sketchedPipelineProperties = {
  name: { type: 'string' },
  description: { type: 'string' },
  steps: { type: 'array', items: pipelineStepBody },
} satisfies Record<string, JsonSchema>;

const updatedPipeline: JsonSchema = {
  type: 'object',
  properties: {
    ...looseAppDefinitionProperties,
    steps: { type: 'array', items: pipelineStepAnswered },
    mappings: { type: 'array', items: pipelineMapping },
    tasks: { type: 'array', items: pipelineTaskAnswered },
  },
};

/** A pipeline's own parts of its definition, as sent: its steps, their mappings and tasks. */
const pipelineParts = {
  steps: { type: 'array', items: pipelineStep },
  mappings: { type: 'array', items: pipelineMapping },
  tasks: { type: 'array', items: pipelineTask },
} satisfies Record<string, JsonSchema>;

const pipelineDefinition: JsonSchema = {
  type: 'object',
  properties: { ...looseAppDefinitionProperties, ...pipelineParts },
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'POST /apps/pipelines': {
    response: { '200': createdPipeline },
    body: {
      type: 'object',
      properties: {
        ...sketchedPipelineProperties,
        mappings: { type: 'array', items: pipelineMapping },
      },
    },
  },
  'PUT /apps/pipelines/{appId}': { response: { '200': updatedPipeline }, body: pipelineDefinition },
  'POST /apps/pipelines/{appId}/copy': {
    response: { '200': updatedPipeline },
    body: unreadOptionalBody,
  },
  'GET /apps/pipelines/{appId}/ui': { response: { '200': createdPipeline } },
  'POST /apps/pipelines/{appId}/versions': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ...looseAppDefinitionProperties,
          ...pipelineParts,
          mappings: { type: 'array', items: {} },
        },
      },
    },
    body: {
      type: 'object',
      properties: {
        ...sketchedPipelineProperties,
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
      '200': { type: 'object', properties: { ...appDefinitionProperties, ...pipelineParts } },
    },
    body: unreadOptionalBody,
  },
  'GET /apps/pipelines/{appId}/versions/{versionId}/ui': {
    response: { '200': pipelineDefinition },
  },
};
