// Shapes of the OpenAPI tables that several rooms' routes take or answer, written once (each
// room's documented.ts holds its own routes' table; the service's documented.ts composes them).
// A shape's variants (claiming its fields required or not, a field or two of another shape) are
// spread from one base, so that the answers that share fields share one copy of them.
import { loose, requiringAll, type JsonSchema } from '../../../common/documented-schemas.ts';

/** An app version's own fields (a listing names them after `app_type`, as sent). */
export const appVersionProperties = {
  version: { type: 'string' },
  version_id: { type: 'string' },
} satisfies Record<string, JsonSchema>;

export const appVersion = requiringAll(appVersionProperties);

export const looseAppVersion = loose(appVersion);

/**
 * The properties of an app in an app listing, its version's included (the listings' own answers
 * vary only in what they require).
 */
export const listedAppProperties: Record<string, JsonSchema> = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  app_type: { type: 'string' },
  ...appVersionProperties,
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

/** The same without the version's fields: the communities' and hierarchies' listings. */
export const unversionedAppProperties: Record<string, JsonSchema> = Object.fromEntries(
  Object.entries(listedAppProperties).filter(([field]) => !(field in appVersionProperties)),
);

/** The fields every app of an app listing carries (the listings' answers add a few each). */
export const appListingRequired = Object.keys(unversionedAppProperties);

/** The same with the version an app listing of versioned apps names (after `app_type`, as sent). */
export const versionedAppRequired = Object.keys(listedAppProperties);

export const pipelineEligibility = requiringAll({
  is_valid: { type: 'boolean' },
  reason: { type: 'string' },
});

export const rating = requiringAll({ average: { type: 'integer' }, total: { type: 'integer' } });

export const limitChecks = requiringAll({
  canRun: { type: 'boolean' },
  results: { type: 'array', items: {} },
});

export const looseLimitChecks = loose(limitChecks);

/** A listed app's properties, its eligibility, rating and limit checks spelt out: its details. */
export const detailedAppProperties: Record<string, JsonSchema> = {
  ...listedAppProperties,
  pipeline_eligibility: pipelineEligibility,
  rating,
  limitChecks,
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

export const appToolDetail = requiringAll(toolSummaryProperties);

export const appTool = loose(appToolDetail);

export const jobStats = requiringAll({
  job_count: { type: 'integer' },
  job_count_completed: { type: 'integer' },
  job_count_failed: { type: 'integer' },
});

export const appDocumentation = requiringAll({
  app_id: { type: 'string' },
  version_id: { type: 'string' },
  documentation: { type: 'string' },
  references: { type: 'array', items: { type: 'string' } },
});

export const htcondorExtra: JsonSchema = {
  type: 'object',
  properties: {
    htcondor: { type: 'object', properties: { extra_requirements: { type: 'string' } } },
  },
};

/** An app's details as administrators see them (their details route, their edit). */
export const adminAppDetailsProperties: Record<string, JsonSchema> = {
  ...detailedAppProperties,
  tools: { type: 'array', items: appTool },
  references: { type: 'array', items: { type: 'string' } },
  categories: { type: 'array', items: {} },
  suggested_categories: { type: 'array', items: {} },
  versions: { type: 'array', items: appVersion },
  job_stats: jobStats,
  documentation: appDocumentation,
  extra: htcondorExtra, // any JSON object an administrator set
  hierarchies: { type: 'array', items: {} },
};

export const namedItem: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
};

export const uiParameterGroup = requiringAll({
  id: { type: 'string' },
  name: { type: 'string' },
  label: { type: 'string' },
  description: { type: 'string' },
  isVisible: { type: 'boolean' },
  step_number: { type: 'integer' },
  parameters: { type: 'array', items: {} },
});

export const parameterGroup = loose(uiParameterGroup);

/**
 * The fields an app's definition opens with, as the app editor and the pipeline editor answer it
 * (each adds its own parts: tools and parameter groups, or steps, mappings and tasks).
 */
export const appDefinitionProperties: Record<string, JsonSchema> = {
  id: { type: 'string' },
  system_id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  ...appVersionProperties,
  versions: { type: 'array', items: appVersion },
  integrator_name: { type: 'string' },
  integrator_email: { type: 'string' },
  integration_date: { type: 'string' },
  edited_date: { type: 'string' },
  is_public: { type: 'boolean' },
  deleted: { type: 'boolean' },
  disabled: { type: 'boolean' },
};

/** The same whose versions claim no field required (a definition as sent, or as stored). */
export const looseAppDefinitionProperties: Record<string, JsonSchema> = {
  ...appDefinitionProperties,
  versions: { type: 'array', items: looseAppVersion },
};

/** A task of an app (a step's tool, its inputs and outputs), as the tasks routes answer it. */
export const appTaskProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  step_number: { type: 'integer' },
  tool: { type: 'object', additionalProperties: true },
  inputs: { type: 'array', items: {} },
  outputs: { type: 'array', items: {} },
} satisfies Record<string, JsonSchema>;

/** An app as the job launcher's view of it answers it, no field claimed required. */
export const appJobViewProperties: Record<string, JsonSchema> = {
  id: { type: 'string' },
  name: { type: 'string' },
  label: { type: 'string' },
  description: { type: 'string' },
  app_type: { type: 'string' },
  system_id: { type: 'string' },
  deleted: { type: 'boolean' },
  disabled: { type: 'boolean' },
  debug: { type: 'boolean' },
  ...appVersionProperties,
  integration_date: { type: 'string' },
  edited_date: { type: 'string' },
  overall_job_type: { type: 'string' },
  requirements: { type: 'array', items: {} },
  versions: { type: 'array', items: looseAppVersion },
  limitChecks: looseLimitChecks,
  groups: { type: 'array', items: parameterGroup },
};

export const appJobView: JsonSchema = { type: 'object', properties: appJobViewProperties };

/** The same as a saved app answers it: every field, its versions, limit checks and groups whole. */
export const savedApp = requiringAll({
  ...appJobViewProperties,
  versions: { type: 'array', items: appVersion },
  limitChecks,
  groups: { type: 'array', items: uiParameterGroup },
});

/** A copy's or a publish's body: the web UI sends `{}` or nothing, so it is optional and unread. */
export const unreadOptionalBody: JsonSchema = {
  type: 'object',
  additionalProperties: true,
  nullable: true,
};

export const analysisSelection: JsonSchema = {
  type: 'object',
  properties: { analyses: { type: 'array', items: { type: 'string' } } },
};

export const elementType = requiringAll({
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
});
