// Shapes of the OpenAPI tables that several rooms' routes take or answer, written once (each
// room's documented.ts holds its own routes' table; the service's documented.ts composes them).
import type { JsonSchema } from '../../../common/documented-schemas.ts';

/** The properties of an app in an app listing, its version's included (the listings' own answers vary only in what they require). */
export const listedAppProperties: Record<string, JsonSchema> = {
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
  pipeline_eligibility: { type: 'object', additionalProperties: true },
  rating: { type: 'object', additionalProperties: true },
  limitChecks: { type: 'object', additionalProperties: true },
};

/** The fields every app of an app listing carries (the listings' answers add a few each). */
export const appListingRequired = [
  'id',
  'name',
  'description',
  'app_type',
  'system_id',
  'integrator_name',
  'integrator_email',
  'integration_date',
  'edited_date',
  'deleted',
  'disabled',
  'beta',
  'is_public',
  'isBlessed',
  'is_favorite',
  'can_favor',
  'can_rate',
  'can_run',
  'step_count',
  'overall_job_type',
  'permission',
  'pipeline_eligibility',
  'rating',
  'limitChecks',
];

/** The same with the version an app listing of versioned apps names (after `app_type`, as sent). */
export const versionedAppRequired = [
  ...appListingRequired.slice(0, 4),
  'version',
  'version_id',
  ...appListingRequired.slice(4),
];

export const pipelineEligibility: JsonSchema = {
  type: 'object',
  properties: { is_valid: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['is_valid', 'reason'],
};

export const rating: JsonSchema = {
  type: 'object',
  properties: { average: { type: 'integer' }, total: { type: 'integer' } },
  required: ['average', 'total'],
};

export const limitChecks: JsonSchema = {
  type: 'object',
  properties: { canRun: { type: 'boolean' }, results: { type: 'array', items: {} } },
  required: ['canRun', 'results'],
};

/**
 * A tool's container image: always there in answers (the web UI shows `image.name` and `image.tag`
 * for every tool); a tool that names none has a `platform-gateway/...` placeholder (docs/api/tools.md).
 */
export const containerImage: JsonSchema = {
  type: 'object',
  properties: {
    name: { type: 'string' },
    tag: { type: 'string' },
    url: { type: 'string' },
    osg_image_path: { type: 'string' },
    deprecated: { type: 'boolean' },
  },
  required: ['name'],
};

/** A tool's container as answered: its image always, the other settings as stored. */
export const toolContainer: JsonSchema = {
  type: 'object',
  properties: {
    image: containerImage,
    min_cpu_cores: { type: 'integer' },
    max_cpu_cores: { type: 'integer' },
    memory_limit: { type: 'integer' },
  },
  required: ['image'],
  additionalProperties: true,
};

/** What every answer that shows a tool gives of it (app details, the editor, tool listings). */
export const toolSummaryProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  location: { type: 'string' },
  type: { type: 'string' },
  version: { type: 'string' },
  attribution: { type: 'string' },
  container: toolContainer,
} satisfies Record<string, JsonSchema>;

export const toolSummaryRequired = Object.keys(toolSummaryProperties);

export const appToolDetail: JsonSchema = {
  type: 'object',
  properties: toolSummaryProperties,
  required: toolSummaryRequired,
};

export const appVersion: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string' }, version_id: { type: 'string' } },
  required: ['version', 'version_id'],
};

export const jobStats: JsonSchema = {
  type: 'object',
  properties: {
    job_count: { type: 'integer' },
    job_count_completed: { type: 'integer' },
    job_count_failed: { type: 'integer' },
  },
  required: ['job_count', 'job_count_completed', 'job_count_failed'],
};

export const appDocumentation: JsonSchema = {
  type: 'object',
  properties: {
    app_id: { type: 'string' },
    version_id: { type: 'string' },
    documentation: { type: 'string' },
    references: { type: 'array', items: { type: 'string' } },
  },
  required: ['app_id', 'version_id', 'documentation', 'references'],
};

export const htcondorExtra: JsonSchema = {
  type: 'object',
  properties: {
    htcondor: { type: 'object', properties: { extra_requirements: { type: 'string' } } },
  },
};

export const looseLimitChecks: JsonSchema = {
  type: 'object',
  properties: { canRun: { type: 'boolean' }, results: { type: 'array', items: {} } },
};

export const appTool: JsonSchema = {
  type: 'object',
  properties: toolSummaryProperties,
};

export const looseAppVersion: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string' }, version_id: { type: 'string' } },
};

export const namedItem: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
};

export const parameterGroup: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    isVisible: { type: 'boolean' },
    step_number: { type: 'integer' },
    parameters: { type: 'array', items: {} },
  },
};

export const appJobView: JsonSchema = {
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
    versions: { type: 'array', items: looseAppVersion },
    limitChecks: looseLimitChecks,
    groups: { type: 'array', items: parameterGroup },
  },
};

export const analysisSelection: JsonSchema = {
  type: 'object',
  properties: { analyses: { type: 'array', items: { type: 'string' } } },
};

export const uiParameterGroup: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    isVisible: { type: 'boolean' },
    step_number: { type: 'integer' },
    parameters: { type: 'array', items: {} },
  },
  required: ['id', 'name', 'label', 'description', 'isVisible', 'step_number', 'parameters'],
};

export const savedApp: JsonSchema = {
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
    limitChecks,
    groups: { type: 'array', items: uiParameterGroup },
  },
  required: [
    'id',
    'name',
    'label',
    'description',
    'app_type',
    'system_id',
    'deleted',
    'disabled',
    'debug',
    'version',
    'version_id',
    'integration_date',
    'edited_date',
    'overall_job_type',
    'requirements',
    'versions',
    'limitChecks',
    'groups',
  ],
};

export const elementType: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' } },
  required: ['id', 'name', 'description'],
};
