// What the apps service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

/** The fields every app of an app listing carries (the listings' answers add a few each). */
const appListingRequired = [
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
const versionedAppRequired = [
  ...appListingRequired.slice(0, 4),
  'version',
  'version_id',
  ...appListingRequired.slice(4),
];

const metadataAvus: JsonSchema = {
  type: 'object',
  properties: {
    avus: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          attr: { type: 'string' },
          value: { type: 'string' },
          unit: { type: 'string' },
          target_id: { type: 'string' },
          target_type: { type: 'string' },
          created_by: { type: 'string' },
          modified_by: { type: 'string' },
          created_on: { type: 'integer' },
          modified_on: { type: 'integer' },
          avus: { type: 'array', items: {} },
        },
        required: [
          'id',
          'attr',
          'value',
          'unit',
          'target_id',
          'target_type',
          'created_by',
          'modified_by',
          'created_on',
          'modified_on',
          'avus',
        ],
      },
    },
  },
  required: ['avus'],
};

const metadataAvusBody: JsonSchema = {
  type: 'object',
  properties: {
    avus: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attr: { type: 'string' },
          value: { type: 'string' },
          unit: { type: 'string' },
        },
      },
    },
  },
};

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

const pipelineEligibility: JsonSchema = {
  type: 'object',
  properties: { is_valid: { type: 'boolean' }, reason: { type: 'string' } },
  required: ['is_valid', 'reason'],
};

const rating: JsonSchema = {
  type: 'object',
  properties: { average: { type: 'integer' }, total: { type: 'integer' } },
  required: ['average', 'total'],
};

const limitChecks: JsonSchema = {
  type: 'object',
  properties: { canRun: { type: 'boolean' }, results: { type: 'array', items: {} } },
  required: ['canRun', 'results'],
};

/**
 * A tool's container image: always there in answers (the web UI shows `image.name` and `image.tag`
 * for every tool); a tool that names none has a `platform-gateway/...` placeholder (docs/api/tools.md).
 */
const containerImage: JsonSchema = {
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
const toolContainer: JsonSchema = {
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
const toolSummaryProperties = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  location: { type: 'string' },
  type: { type: 'string' },
  version: { type: 'string' },
  attribution: { type: 'string' },
  container: toolContainer,
} satisfies Record<string, JsonSchema>;
const toolSummaryRequired = Object.keys(toolSummaryProperties);

const appToolDetail: JsonSchema = {
  type: 'object',
  properties: toolSummaryProperties,
  required: toolSummaryRequired,
};

const appVersion: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string' }, version_id: { type: 'string' } },
  required: ['version', 'version_id'],
};

const jobStats: JsonSchema = {
  type: 'object',
  properties: {
    job_count: { type: 'integer' },
    job_count_completed: { type: 'integer' },
    job_count_failed: { type: 'integer' },
  },
  required: ['job_count', 'job_count_completed', 'job_count_failed'],
};

const appDocumentation: JsonSchema = {
  type: 'object',
  properties: {
    app_id: { type: 'string' },
    version_id: { type: 'string' },
    documentation: { type: 'string' },
    references: { type: 'array', items: { type: 'string' } },
  },
  required: ['app_id', 'version_id', 'documentation', 'references'],
};

const htcondorExtra: JsonSchema = {
  type: 'object',
  properties: {
    htcondor: { type: 'object', properties: { extra_requirements: { type: 'string' } } },
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

const looseLimitChecks: JsonSchema = {
  type: 'object',
  properties: { canRun: { type: 'boolean' }, results: { type: 'array', items: {} } },
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

const appTool: JsonSchema = {
  type: 'object',
  properties: toolSummaryProperties,
};

const looseAppVersion: JsonSchema = {
  type: 'object',
  properties: { version: { type: 'string' }, version_id: { type: 'string' } },
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

const appCategory: JsonSchema = {
  type: 'object',
  properties: {
    system_id: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    is_public: { type: 'boolean' },
    total: { type: 'integer' },
    parent_id: { type: 'string', nullable: true },
  },
  required: ['system_id', 'id', 'name', 'description', 'is_public', 'total', 'parent_id'],
};

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

const appIds: JsonSchema = {
  type: 'object',
  properties: { app_ids: { type: 'array', items: { type: 'string' } } },
};

const appUnsharing: JsonSchema = {
  type: 'object',
  properties: { unsharing: { type: 'array', items: appSharingRequest } },
};

const appHierarchy: JsonSchema = {
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
    },
  },
};

const hierarchyApp: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    app_type: { type: 'string' },
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
    version: { type: 'string' },
    version_id: { type: 'string' },
  },
  required: [...appListingRequired],
};

const ontologyApps: JsonSchema = {
  type: 'object',
  properties: { total: { type: 'integer' }, apps: { type: 'array', items: hierarchyApp } },
};

const referenceGenome: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    path: { type: 'string' },
    deleted: { type: 'boolean' },
    created_by: { type: 'string' },
    created_on: { type: 'string' },
    last_modified_by: { type: 'string' },
    last_modified_on: { type: 'string' },
  },
  required: [
    'id',
    'name',
    'path',
    'deleted',
    'created_by',
    'created_on',
    'last_modified_by',
    'last_modified_on',
  ],
};

const referenceGenomeBody: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, path: { type: 'string' } },
};

const toolRequestStatus: JsonSchema = {
  type: 'object',
  properties: {
    status: { type: 'string' },
    status_date: { type: 'integer' },
    updated_by: { type: 'string' },
    comments: { type: 'string' },
  },
  required: ['status', 'status_date', 'updated_by', 'comments'],
};

const toolRequest: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    submitted_by: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    version: { type: 'string' },
    source_url: { type: 'string' },
    documentation_url: { type: 'string' },
    attribution: { type: 'string' },
    test_data_path: { type: 'string' },
    cmd_line: { type: 'string' },
    multithreaded: { type: 'boolean' },
    history: { type: 'array', items: toolRequestStatus },
    source_upload_file: { type: 'string' },
  },
  required: [
    'id',
    'submitted_by',
    'name',
    'description',
    'version',
    'documentation_url',
    'attribution',
    'test_data_path',
    'cmd_line',
    'multithreaded',
    'history',
  ],
};

const namedItem: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' } },
};

const toolImplementation: JsonSchema = {
  type: 'object',
  properties: {
    implementor: { type: 'string' },
    implementor_email: { type: 'string' },
    test: {
      type: 'object',
      properties: {
        input_files: { type: 'array', items: {} },
        output_files: { type: 'array', items: {} },
      },
      required: ['input_files', 'output_files'],
    },
  },
  required: ['implementor', 'implementor_email', 'test'],
};

/** A tool as a user or an administrator reads, changes or publishes it. */
const answeredToolProperties = {
  ...toolSummaryProperties,
  is_public: { type: 'boolean' },
  permission: { type: 'string' },
  restricted: { type: 'boolean' },
  interactive: { type: 'boolean' },
  implementation: toolImplementation,
} satisfies Record<string, JsonSchema>;
const answeredTool: JsonSchema = {
  type: 'object',
  properties: answeredToolProperties,
  required: [
    ...toolSummaryRequired,
    'is_public',
    'permission',
    'restricted',
    'interactive',
    'implementation',
  ],
};

const toolApp: JsonSchema = {
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
    pipeline_eligibility: { type: 'object', additionalProperties: true },
    rating: { type: 'object', additionalProperties: true },
    limitChecks: { type: 'object', additionalProperties: true },
  },
};

const parameterGroup: JsonSchema = {
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

const appJobView: JsonSchema = {
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

const analysisStatus: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, status: { type: 'string' } },
  required: ['id', 'status'],
};

const resourcePermissions: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    permissions: { type: 'array', items: {} },
  },
};

const analysisSelection: JsonSchema = {
  type: 'object',
  properties: { analyses: { type: 'array', items: { type: 'string' } } },
};

const analysisSharingRequest: JsonSchema = {
  type: 'object',
  properties: {
    subject: { type: 'object', additionalProperties: true },
    analyses: { type: 'array', items: {} },
  },
};

const analysisIds: JsonSchema = {
  type: 'object',
  properties: { analyses: { type: 'array', items: { type: 'string' } } },
  required: ['analyses'],
};

const analysisUnsharing: JsonSchema = {
  type: 'object',
  properties: { unsharing: { type: 'array', items: analysisSharingRequest } },
};

const listedApp: JsonSchema = {
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
    pipeline_eligibility: { type: 'object', additionalProperties: true },
    rating: { type: 'object', additionalProperties: true },
    limitChecks: { type: 'object', additionalProperties: true },
  },
  required: [...appListingRequired],
};

const uiParameterGroup: JsonSchema = {
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

const savedApp: JsonSchema = {
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

const ratingSummary: JsonSchema = {
  type: 'object',
  properties: { average: { type: 'number' }, total: { type: 'integer' } },
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

const categoryApps: JsonSchema = {
  type: 'object',
  properties: {
    system_id: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    is_public: { type: 'boolean' },
    total: { type: 'integer' },
    apps: { type: 'array', items: listedApp },
  },
  required: ['system_id', 'id', 'name', 'is_public', 'total', 'apps'],
};

const elementType: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, name: { type: 'string' }, description: { type: 'string' } },
  required: ['id', 'name', 'description'],
};

const hierarchyApps: JsonSchema = {
  type: 'object',
  properties: { total: { type: 'integer' }, apps: { type: 'array', items: hierarchyApp } },
  required: ['total', 'apps'],
};

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

const webhooks: JsonSchema = {
  type: 'object',
  properties: {
    webhooks: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          id: { type: 'string' },
          url: { type: 'string' },
          type: { type: 'object', additionalProperties: true },
          topics: { type: 'array', items: {} },
          secret: { type: 'string' },
        },
        required: ['id', 'url', 'type', 'topics', 'secret'],
      },
    },
  },
  required: ['webhooks'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /admin/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                app_type: { type: 'string' },
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
                job_stats: { type: 'object', additionalProperties: true },
                version: { type: 'string' },
                version_id: { type: 'string' },
              },
              required: [...appListingRequired, 'job_stats'],
            },
          },
        },
        required: ['total', 'apps'],
      },
    },
  },
  'POST /admin/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                app_id: { type: 'string' },
                category_ids: { type: 'array', items: {} },
              },
              required: ['system_id', 'app_id', 'category_ids'],
            },
          },
        },
        required: ['categories'],
      },
    },
    body: {
      type: 'object',
      properties: {
        categories: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              app_id: { type: 'string' },
              category_ids: { type: 'array', items: {} },
              system_id: { type: 'string' },
            },
          },
        },
      },
    },
  },
  'GET /admin/apps/{appId}/metadata': { response: { '200': metadataAvus } },
  'POST /admin/apps/{appId}/metadata': {
    response: { '200': metadataAvus },
    body: metadataAvusBody,
  },
  'PUT /admin/apps/{appId}/metadata': {
    response: { '200': { type: 'object', properties: { avus: { type: 'array', items: {} } } } },
    body: { type: 'object', properties: { avus: { type: 'array', items: {} } } },
  },
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
          extra: {
            type: 'object',
            properties: {
              htcondor: {
                type: 'object',
                properties: { extra_requirements: { type: 'string' } },
                required: ['extra_requirements'],
              },
            },
            required: ['htcondor'],
          },
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
  'GET /admin/apps/{systemId}/{appId}/details': {
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
          tools: { type: 'array', items: appTool },
          references: { type: 'array', items: { type: 'string' } },
          categories: { type: 'array', items: {} },
          suggested_categories: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          job_stats: jobStats,
          documentation: appDocumentation,
          extra: htcondorExtra,
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
  },
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
    body: { type: 'object', additionalProperties: true },
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
  'GET /admin/apps/categories': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                is_public: { type: 'boolean' },
                total: { type: 'integer' },
                categories: { type: 'array', items: {} },
              },
              required: [
                'system_id',
                'id',
                'name',
                'description',
                'is_public',
                'total',
                'categories',
              ],
            },
          },
        },
        required: ['categories'],
      },
    },
  },
  'POST /admin/apps/categories/{systemId}': {
    response: { '200': appCategory },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, parent_id: { type: 'string' } },
    },
  },
  'DELETE /admin/apps/categories/{systemId}/{categoryId}': {
    response: {
      '200': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
  'PATCH /admin/apps/categories/{systemId}/{categoryId}': {
    response: { '200': appCategory },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, parent_id: { type: 'string', nullable: true } },
    },
  },
  'GET /admin/apps/categories/search': {
    response: {
      '200': {
        type: 'object',
        properties: { categories: { type: 'array', items: appCategory } },
        required: ['categories'],
      },
    },
  },
  'GET /admin/apps/communities/{communityId}/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                app_type: { type: 'string' },
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
              },
            },
          },
        },
      },
    },
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
                documentation: { type: 'string' },
                references: { type: 'array', items: {} },
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
                'documentation',
                'references',
                'app',
              ],
            },
          },
        },
        required: ['publication_requests'],
      },
    },
  },
  'POST /admin/apps/sharing': { response: { '200': appSharing }, body: appSharing },
  'POST /admin/apps/shredder': { response: { '200': appIds }, body: appIds },
  'POST /admin/apps/unsharing': { response: { '200': appUnsharing }, body: appUnsharing },
  'GET /admin/groups/workshop': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          type: { type: 'string' },
          description: { type: 'string' },
          display_extension: { type: 'string' },
          display_name: { type: 'string' },
          extension: { type: 'string' },
          detail: {
            type: 'object',
            properties: {
              created_at: { type: 'integer' },
              created_by: { type: 'string' },
              modified_at: { type: 'integer' },
              has_composite: { type: 'boolean' },
              is_composite_factor: { type: 'boolean' },
              type_names: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
  'GET /admin/groups/workshop/members': {
    response: {
      '200': {
        type: 'object',
        properties: {
          members: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                first_name: { type: 'string' },
                last_name: { type: 'string' },
                email: { type: 'string' },
                institution: { type: 'string' },
                description: { type: 'string' },
                source_id: { type: 'string' },
                display_name: { type: 'string' },
              },
              required: [
                'id',
                'name',
                'first_name',
                'last_name',
                'email',
                'institution',
                'description',
                'source_id',
                'display_name',
              ],
            },
          },
        },
        required: ['members'],
      },
    },
  },
  'PUT /admin/groups/workshop/members': {
    response: {
      '200': {
        type: 'object',
        properties: {
          results: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                success: { type: 'boolean' },
                subject_id: { type: 'string' },
                subject_name: { type: 'string' },
                reason: { type: 'string' },
              },
              required: ['success', 'subject_id'],
            },
          },
        },
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
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
  'DELETE /admin/oauth/token-info/{apiName}': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'GET /admin/oauth/token-info/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          access_token: { type: 'string' },
          expires_at: { type: 'integer' },
          refresh_token: { type: 'string' },
          webapp: { type: 'string' },
        },
        required: ['access_token', 'expires_at', 'refresh_token', 'webapp'],
      },
    },
  },
  'GET /admin/ontologies': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ontologies: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                iri: { type: 'string' },
                version: { type: 'string' },
                created_by: { type: 'string' },
                created_on: { type: 'integer' },
                active: { type: 'boolean' },
              },
              required: ['iri', 'version', 'created_by', 'created_on', 'active'],
            },
          },
        },
        required: ['ontologies'],
      },
    },
  },
  'POST /admin/ontologies/{version}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          version: { type: 'string' },
          applied_by: { type: 'string' },
          applied: { type: 'integer' },
        },
        required: ['version', 'applied_by', 'applied'],
      },
    },
    noBody: true,
  },
  'GET /admin/ontologies/{version}/{rootIri}': { response: { '200': appHierarchy } },
  'GET /admin/ontologies/{version}/{rootIri}/apps': { response: { '200': ontologyApps } },
  'GET /admin/ontologies/{version}/{rootIri}/unclassified': { response: { '200': ontologyApps } },
  'POST /admin/reference-genomes': {
    response: { '200': referenceGenome },
    body: referenceGenomeBody,
  },
  'DELETE /admin/reference-genomes/{id}': { response: { '200': referenceGenome } },
  'PATCH /admin/reference-genomes/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          path: { type: 'string' },
          deleted: { type: 'boolean' },
          created_by: { type: 'string' },
          created_on: { type: 'string' },
          last_modified_by: { type: 'string' },
          last_modified_on: { type: 'string' },
        },
      },
    },
    body: referenceGenomeBody,
  },
  'GET /admin/tool-requests': {
    response: {
      '200': {
        type: 'object',
        properties: {
          tool_requests: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                version: { type: 'string' },
                requested_by: { type: 'string' },
                date_submitted: { type: 'integer' },
                status: { type: 'string' },
                date_updated: { type: 'integer' },
                updated_by: { type: 'string' },
              },
              required: [
                'id',
                'name',
                'version',
                'requested_by',
                'date_submitted',
                'status',
                'date_updated',
                'updated_by',
              ],
            },
          },
          total: { type: 'integer' },
        },
        required: ['tool_requests', 'total'],
      },
    },
  },
  'DELETE /admin/tool-requests/{requestId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /admin/tool-requests/{requestId}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          submitted_by: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          version: { type: 'string' },
          source_url: { type: 'string' },
          documentation_url: { type: 'string' },
          attribution: { type: 'string' },
          test_data_path: { type: 'string' },
          cmd_line: { type: 'string' },
          multithreaded: { type: 'boolean' },
          history: { type: 'array', items: toolRequestStatus },
        },
      },
    },
  },
  'POST /admin/tool-requests/{requestId}/status': {
    response: { '200': toolRequest },
    body: {
      type: 'object',
      properties: { status: { type: 'string' }, comments: { type: 'string' } },
    },
  },
  'DELETE /admin/tool-requests/status-codes/{codeId}': { response: { '200': namedItem } },
  'GET /admin/tools': {
    response: {
      '200': {
        type: 'object',
        properties: {
          tools: {
            type: 'array',
            items: answeredTool,
          },
          total: { type: 'integer' },
        },
      },
    },
  },
  'POST /admin/tools': {
    response: {
      '200': {
        type: 'object',
        properties: { tool_ids: { type: 'array', items: { type: 'string' } } },
      },
    },
    body: {
      type: 'object',
      properties: {
        tools: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              name: { type: 'string' },
              description: { type: 'string' },
              type: { type: 'string' },
              version: { type: 'string' },
              location: { type: 'string' },
              attribution: { type: 'string' },
              container: { type: 'object', additionalProperties: true },
              user: { type: 'string' },
            },
          },
        },
      },
    },
  },
  'DELETE /admin/tools/{toolId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /admin/tools/{toolId}': { response: { '200': answeredTool } },
  'PATCH /admin/tools/{toolId}': {
    response: { '200': answeredTool },
    body: {
      type: 'object',
      description:
        'The fields to change. Of a built-in tool only description, attribution, version and implementation change; its other fields may be sent only as answered.',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        description: { type: 'string' },
        location: { type: 'string' },
        type: { type: 'string' },
        version: { type: 'string' },
        attribution: { type: 'string' },
        restricted: { type: 'boolean' },
        interactive: { type: 'boolean' },
        time_limit_seconds: { type: 'integer' },
        implementation: { type: 'object', additionalProperties: true },
        container: { type: 'object', properties: { image: containerImage } },
      },
    },
  },
  'GET /admin/tools/{toolId}/apps': {
    response: {
      '200': { type: 'object', properties: { apps: { type: 'array', items: toolApp } } },
    },
  },
  'PUT /admin/tools/{toolId}/integration-data/{dataId}': {
    response: { '200': integrationData },
    noBody: true,
  },
  'POST /admin/tools/{toolId}/publish': { response: { '200': answeredTool }, noBody: true },
  'DELETE /admin/workspaces': {
    response: {
      '200': {
        type: 'object',
        properties: {
          workspaces: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                user_id: { type: 'string' },
                username: { type: 'string' },
                root_category_id: { type: 'string' },
                is_public: { type: 'boolean' },
              },
            },
          },
        },
      },
    },
  },
  'GET /admin/workspaces': {
    response: {
      '200': {
        type: 'object',
        properties: {
          workspaces: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                user_id: { type: 'string' },
                username: { type: 'string' },
                root_category_id: { type: 'string' },
                is_public: { type: 'boolean' },
              },
              required: ['id', 'user_id', 'username', 'root_category_id', 'is_public'],
            },
          },
        },
        required: ['workspaces'],
      },
    },
  },
  'GET /analyses': {
    response: {
      '200': {
        type: 'object',
        properties: {
          analyses: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                app_id: { type: 'string' },
                app_version_id: { type: 'string' },
                system_id: { type: 'string' },
                app_name: { type: 'string' },
                app_description: { type: 'string' },
                startdate: { type: 'string' },
                enddate: { type: 'string' },
                notify: { type: 'boolean' },
                resultfolderid: { type: 'string' },
                status: { type: 'string' },
                username: { type: 'string' },
                parent_id: {},
                batch: { type: 'boolean' },
                app_disabled: { type: 'boolean' },
                can_share: { type: 'boolean' },
                permission: { type: 'string' },
                interactive_urls: { type: 'array', items: {} },
              },
              required: [
                'id',
                'name',
                'description',
                'app_id',
                'app_version_id',
                'system_id',
                'app_name',
                'app_description',
                'startdate',
                'enddate',
                'notify',
                'resultfolderid',
                'status',
                'username',
                'parent_id',
                'batch',
                'app_disabled',
                'can_share',
                'permission',
                'interactive_urls',
              ],
            },
          },
          timestamp: { type: 'string' },
          total: { type: 'integer' },
          'status-count': {
            type: 'array',
            items: {
              type: 'object',
              properties: { status: { type: 'string' }, count: { type: 'integer' } },
              required: ['status', 'count'],
            },
          },
        },
        required: ['analyses', 'timestamp', 'total', 'status-count'],
      },
    },
  },
  'POST /analyses': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          status: { type: 'string' },
          'start-date': { type: 'string' },
        },
        required: ['id', 'name', 'status', 'start-date'],
      },
    },
    body: {
      type: 'object',
      properties: {
        system_id: { type: 'string' },
        app_id: { type: 'string' },
        name: { type: 'string' },
        config: { type: 'object', additionalProperties: {} },
        output_dir: { type: 'string' },
        create_output_subdir: { type: 'boolean' },
        notify: { type: 'boolean' },
      },
    },
  },
  'DELETE /analyses/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'PATCH /analyses/{id}': {
    response: { '200': namedItem },
    body: { type: 'object', properties: { name: { type: 'string' } } },
  },
  'GET /analyses/{id}/history': {
    response: {
      '200': {
        type: 'object',
        properties: {
          analysis_id: { type: 'string' },
          steps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                step_number: { type: 'integer' },
                external_id: { type: 'string' },
                startdate: { type: 'string' },
                enddate: { type: 'string' },
                status: { type: 'string' },
                app_step_number: { type: 'integer' },
                step_type: { type: 'string' },
                updates: { type: 'array', items: {} },
              },
              required: [
                'step_number',
                'external_id',
                'startdate',
                'enddate',
                'status',
                'app_step_number',
                'step_type',
                'updates',
              ],
            },
          },
          timestamp: { type: 'string' },
          total: { type: 'integer' },
        },
        required: ['analysis_id', 'steps', 'timestamp', 'total'],
      },
    },
  },
  'GET /analyses/{id}/parameters': {
    response: {
      '200': {
        type: 'object',
        properties: {
          app_id: { type: 'string' },
          system_id: { type: 'string' },
          parameters: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                full_param_id: { type: 'string' },
                param_id: { type: 'string' },
                param_name: { type: 'string' },
                param_type: { type: 'string' },
                param_value: { type: 'object', additionalProperties: true },
                is_default_value: { type: 'boolean' },
                is_visible: { type: 'boolean' },
              },
              required: [
                'full_param_id',
                'param_id',
                'param_name',
                'param_type',
                'param_value',
                'is_default_value',
                'is_visible',
              ],
            },
          },
        },
        required: ['app_id', 'system_id', 'parameters'],
      },
    },
  },
  'GET /analyses/{id}/relaunch-info': { response: { '200': appJobView } },
  'GET /analyses/{id}/steps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          analysis_id: { type: 'string' },
          steps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                step_number: { type: 'integer' },
                external_id: { type: 'string' },
                startdate: { type: 'string' },
                enddate: { type: 'string' },
                status: { type: 'string' },
                app_step_number: { type: 'integer' },
                step_type: { type: 'string' },
              },
              required: [
                'step_number',
                'external_id',
                'startdate',
                'enddate',
                'status',
                'app_step_number',
                'step_type',
              ],
            },
          },
          timestamp: { type: 'string' },
          total: { type: 'integer' },
        },
        required: ['analysis_id', 'steps', 'timestamp', 'total'],
      },
    },
  },
  'POST /analyses/{id}/stop': { response: { '200': analysisStatus }, noBody: true },
  'POST /analyses/permission-lister': {
    response: {
      '200': {
        type: 'object',
        properties: { analyses: { type: 'array', items: resourcePermissions } },
      },
    },
    body: analysisSelection,
  },
  'POST /analyses/relauncher': {
    response: {
      '200': {
        type: 'object',
        properties: {
          analyses: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                status: { type: 'string' },
                'start-date': { type: 'string' },
              },
            },
          },
        },
        required: ['analyses'],
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
  'POST /analyses/shredder': { body: analysisIds, response: { '200': analysisIds } },
  'GET /analyses/stats': {
    response: {
      '200': {
        type: 'object',
        properties: {
          'status-count': {
            type: 'array',
            items: {
              type: 'object',
              properties: { status: { type: 'string' }, count: { type: 'integer' } },
            },
          },
        },
      },
    },
  },
  'POST /analyses/unsharing': { response: { '200': analysisUnsharing }, body: analysisUnsharing },
  'GET /apps': {
    response: {
      '200': {
        type: 'object',
        properties: { total: { type: 'integer' }, apps: { type: 'array', items: listedApp } },
        required: ['total', 'apps'],
      },
    },
  },
  'DELETE /apps/{appId}/communities': {
    response: { '200': { type: 'object', properties: { avus: { type: 'array', items: {} } } } },
  },
  'POST /apps/{appId}/communities': { response: { '200': metadataAvus }, body: metadataAvusBody },
  'GET /apps/{appId}/metadata': { response: { '200': metadataAvus } },
  'POST /apps/{appId}/metadata': {
    response: { '200': metadataAvus },
    body: {
      type: 'object',
      properties: {
        avus: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              attr: { type: 'string' },
              value: { type: 'string' },
              unit: { type: 'string' },
              id: { type: 'string' },
            },
          },
        },
      },
    },
  },
  'PUT /apps/{appId}/metadata': {
    response: {
      '200': {
        type: 'object',
        properties: {
          avus: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                attr: { type: 'string' },
                value: { type: 'string' },
                unit: { type: 'string' },
                target_id: { type: 'string' },
                target_type: { type: 'string' },
                created_by: { type: 'string' },
                modified_by: { type: 'string' },
                created_on: { type: 'integer' },
                modified_on: { type: 'integer' },
                avus: { type: 'array', items: {} },
              },
            },
          },
        },
        required: ['avus'],
      },
    },
    body: metadataAvusBody,
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
  'GET /apps/{systemId}/{appId}': { response: { '200': savedApp } },
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
    body: { type: 'object', additionalProperties: true },
  },
  'GET /apps/{systemId}/{appId}/details': {
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
          rating: {
            type: 'object',
            properties: {
              average: { type: 'integer' },
              total: { type: 'integer' },
              user: { type: 'integer' },
            },
            required: ['average', 'total'],
          },
          limitChecks,
          tools: {
            type: 'array',
            items: appToolDetail,
          },
          references: { type: 'array', items: {} },
          categories: { type: 'array', items: namedItem },
          suggested_categories: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          job_stats: {
            type: 'object',
            properties: {
              job_count_completed: { type: 'integer' },
              job_last_completed: { type: 'string' },
            },
            required: ['job_count_completed'],
          },
        },
        required: [
          ...versionedAppRequired,
          'tools',
          'references',
          'categories',
          'suggested_categories',
          'versions',
          'job_stats',
        ],
      },
    },
  },
  'GET /apps/{systemId}/{appId}/documentation': { response: { '200': appDocumentation } },
  'POST /apps/{systemId}/{appId}/documentation': {
    response: { '200': savedDocumentation },
    body: documentationBody,
  },
  'DELETE /apps/{systemId}/{appId}/favorite': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'PUT /apps/{systemId}/{appId}/favorite': {
    response: { '200': { type: 'object', additionalProperties: true } },
    noBody: true,
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
  'GET /apps/{systemId}/{appId}/listing': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
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
                pipeline_eligibility: { type: 'object', additionalProperties: true },
                rating: { type: 'object', additionalProperties: true },
                limitChecks: { type: 'object', additionalProperties: true },
              },
              required: [...versionedAppRequired],
            },
          },
        },
        required: ['total', 'apps'],
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
  'DELETE /apps/{systemId}/{appId}/rating': { response: { '200': ratingSummary } },
  'POST /apps/{systemId}/{appId}/rating': {
    response: { '200': ratingSummary },
    body: { type: 'object', properties: { rating: { type: 'integer' } } },
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
    body: { type: 'object', additionalProperties: true },
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
  'GET /apps/categories': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                id: { type: 'string' },
                name: { type: 'string' },
                is_public: { type: 'boolean' },
                total: { type: 'integer' },
                categories: { type: 'array', items: {} },
              },
              required: ['system_id', 'id', 'name', 'is_public', 'total', 'categories'],
            },
          },
        },
        required: ['categories'],
      },
    },
  },
  'GET /apps/categories/{systemId}/{categoryId}': { response: { '200': categoryApps } },
  'GET /apps/categories/featured': { response: { '200': categoryApps } },
  'GET /apps/communities/{communityId}/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                app_type: { type: 'string' },
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
              },
              required: [...appListingRequired],
            },
          },
        },
        required: ['total', 'apps'],
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
  'GET /apps/hierarchies': {
    response: {
      '200': {
        type: 'object',
        properties: {
          hierarchies: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                iri: { type: 'string' },
                label: { type: 'string' },
                description: { type: 'string' },
                subclasses: { type: 'array', items: {} },
              },
            },
          },
        },
        required: ['hierarchies'],
      },
    },
  },
  'GET /apps/hierarchies/{rootIri}': { response: { '200': appHierarchy } },
  'GET /apps/hierarchies/{rootIri}/apps': { response: { '200': hierarchyApps } },
  'GET /apps/hierarchies/{rootIri}/unclassified': { response: { '200': hierarchyApps } },
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
    body: { type: 'object', additionalProperties: true },
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
    body: { type: 'object', additionalProperties: true },
  },
  'GET /apps/pipelines/{appId}/versions/{versionId}/ui': {
    response: { '200': pipelineDefinition },
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
  'POST /apps/shredder': { response: { '200': appIds }, body: appIds },
  'POST /apps/unsharing': { response: { '200': appUnsharing }, body: appUnsharing },
  'POST /callbacks/extapi-job/{jobId}': {
    response: { '200': analysisStatus },
    body: {
      type: 'object',
      properties: {
        status: { type: 'string' },
        state: {
          type: 'object',
          properties: { status: { type: 'string' }, message: { type: 'string' } },
        },
      },
    },
  },
  'GET /oauth/access-code/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: { state_info: { type: 'string' } },
        required: ['state_info'],
      },
    },
  },
  'GET /oauth/redirect-uris': {
    response: { '200': { type: 'object', properties: { extapi: { type: 'string' } } } },
  },
  'DELETE /oauth/token-info/{apiName}': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'GET /oauth/token-info/{apiName}': {
    response: {
      '200': {
        type: 'object',
        properties: { expires_at: { type: 'integer' }, webapp: { type: 'string' } },
        required: ['expires_at', 'webapp'],
      },
    },
  },
  'GET /reference-genomes': {
    response: {
      '200': {
        type: 'object',
        properties: { genomes: { type: 'array', items: referenceGenome } },
        required: ['genomes'],
      },
    },
  },
  'GET /reference-genomes/{id}': { response: { '200': referenceGenome } },
  'GET /tool-requests': {
    response: {
      '200': {
        type: 'object',
        properties: {
          tool_requests: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                version: { type: 'string' },
                requested_by: { type: 'string' },
                date_submitted: { type: 'integer' },
                status: { type: 'string' },
                date_updated: { type: 'integer' },
                updated_by: { type: 'string' },
              },
            },
          },
          total: { type: 'integer' },
        },
        required: ['tool_requests', 'total'],
      },
    },
  },
  'POST /tool-requests': {
    response: { '200': toolRequest },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        source_url: { type: 'string' },
        version: { type: 'string' },
        documentation_url: { type: 'string' },
        attribution: { type: 'string' },
        multithreaded: { type: 'boolean' },
        test_data_path: { type: 'string' },
        cmd_line: { type: 'string' },
        source_upload_file: { type: 'string' },
      },
    },
  },
  'GET /tool-requests/status-codes': {
    response: {
      '200': {
        type: 'object',
        properties: { status_codes: { type: 'array', items: elementType } },
        required: ['status_codes'],
      },
    },
  },
  'GET /tools': {
    response: {
      '200': {
        type: 'object',
        properties: {
          tools: {
            type: 'array',
            items: answeredTool,
          },
          total: { type: 'integer' },
        },
        required: ['tools', 'total'],
      },
    },
  },
  'POST /tools': {
    response: {
      '200': {
        ...answeredTool,
        properties: { ...answeredToolProperties, time_limit_seconds: { type: 'integer' } },
      },
    },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        type: { type: 'string' },
        version: { type: 'string' },
        location: { type: 'string' },
        attribution: { type: 'string' },
        container: {
          type: 'object',
          properties: {
            image: {
              type: 'object',
              properties: {
                name: { type: 'string' },
                tag: { type: 'string' },
                url: { type: 'string' },
              },
            },
            min_cpu_cores: { type: 'integer' },
            max_cpu_cores: { type: 'integer' },
            memory_limit: { type: 'integer' },
          },
        },
        time_limit_seconds: { type: 'integer' },
        interactive: { type: 'boolean' },
      },
    },
  },
  'DELETE /tools/{toolId}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /tools/{toolId}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          location: { type: 'string' },
          type: { type: 'string' },
          version: { type: 'string' },
          attribution: { type: 'string' },
          is_public: { type: 'boolean' },
          permission: { type: 'string' },
          restricted: { type: 'boolean' },
          interactive: { type: 'boolean' },
          implementation: toolImplementation,
          container: {
            type: 'object',
            properties: {
              image: containerImage,
              min_cpu_cores: { type: 'integer' },
              max_cpu_cores: { type: 'integer' },
              memory_limit: { type: 'integer' },
              min_memory_limit: { type: 'integer' },
              min_disk_space: { type: 'integer' },
              network_mode: { type: 'string' },
              skip_tmp_mount: { type: 'boolean' },
              container_devices: { type: 'array', items: {} },
              container_volumes: { type: 'array', items: {} },
              container_volumes_from: { type: 'array', items: {} },
              container_ports: { type: 'array', items: {} },
            },
            required: ['image'],
            additionalProperties: true,
          },
        },
        required: [
          'id',
          'name',
          'description',
          'location',
          'type',
          'version',
          'attribution',
          'is_public',
          'permission',
          'restricted',
          'interactive',
          'implementation',
          'container',
        ],
      },
    },
  },
  'PATCH /tools/{toolId}': {
    response: { '200': answeredTool },
    body: {
      type: 'object',
      properties: {
        id: { type: 'string' },
        name: { type: 'string' },
        version: { type: 'string' },
        description: { type: 'string' },
        location: { type: 'string' },
      },
    },
  },
  'GET /tools/{toolId}/apps': {
    response: {
      '200': {
        type: 'object',
        properties: { apps: { type: 'array', items: toolApp } },
        required: ['apps'],
      },
    },
  },
  'GET /tools/{toolId}/integration-data': { response: { '200': appIntegrationData } },
  'GET /tools/gpu-models': {
    response: {
      '200': {
        type: 'object',
        properties: { gpu_models: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
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
  'GET /users/logins': {
    response: {
      '200': {
        type: 'object',
        properties: {
          logins: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                login_time: { type: 'integer' },
                ip_address: { type: 'string' },
                session_id: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  'GET /webhooks': { response: { '200': webhooks } },
  'PUT /webhooks': {
    response: { '200': webhooks },
    body: {
      type: 'object',
      properties: {
        webhooks: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              url: { type: 'string' },
              type: { type: 'object', additionalProperties: true },
              topics: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
  'GET /webhooks/topics': {
    response: {
      '200': {
        type: 'object',
        properties: {
          topics: {
            type: 'array',
            items: {
              type: 'object',
              properties: { id: { type: 'string' }, topic: { type: 'string' } },
              required: ['id', 'topic'],
            },
          },
        },
      },
    },
  },
  'GET /webhooks/types': {
    response: {
      '200': {
        type: 'object',
        properties: {
          webhooktypes: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                type: { type: 'string' },
                template: { type: 'string' },
              },
              required: ['id', 'type', 'template'],
            },
          },
        },
      },
    },
  },
};
