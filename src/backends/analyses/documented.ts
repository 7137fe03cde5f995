// What the analyses service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const listedInstantLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quick_launch_id: { type: 'string' },
    added_by: { type: 'string' },
    added_on: { type: 'string' },
  },
  required: ['id', 'quick_launch_id', 'added_by', 'added_on'],
};

const instantLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quick_launch_id: { type: 'string' },
    added_by: { type: 'string' },
    added_on: { type: 'string' },
  },
};

/**
 * An analysis submission as a quick launch holds it: stored as its creator gave it (the spec: "required
 * analysis parameters need not all be present"), so no field is sure to be there.
 */
const storedSubmission: JsonSchema = {
  type: 'object',
  properties: {
    system_id: { type: 'string' },
    app_id: { type: 'string' },
    name: { type: 'string' },
    debug: { type: 'boolean' },
    notify: { type: 'boolean' },
    output_dir: { type: 'string' },
    config: { type: 'object', additionalProperties: true },
  },
};

const fullInstantLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quick_launch_id: { type: 'string' },
    added_by: { type: 'string' },
    added_on: { type: 'string' },
    quick_launch_name: { type: 'string' },
    quick_launch_description: { type: 'string' },
    quick_launch_creator: { type: 'string' },
    quick_launch_is_public: { type: 'boolean' },
    submission: storedSubmission,
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
    app_version: { type: 'string' },
    app_name: { type: 'string' },
    app_description: { type: 'string' },
  },
  required: [
    'id',
    'quick_launch_id',
    'added_by',
    'added_on',
    'quick_launch_name',
    'quick_launch_description',
    'quick_launch_creator',
    'quick_launch_is_public',
    'submission',
    'app_id',
    'app_version_id',
    'app_version',
    'app_name',
    'app_description',
  ],
};

const instantLaunchAvu: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    attr: { type: 'string', description: 'The attribute (the name the web UI reads)' },
    attribute: { type: 'string', description: 'The attribute again (the earlier name)' },
    value: { type: 'string' },
    unit: { type: 'string' },
    target_id: { type: 'string' },
    target_type: { type: 'string' },
  },
  required: ['id', 'attr', 'attribute', 'value', 'unit', 'target_id', 'target_type'],
};

const instantLaunchMetadata: JsonSchema = {
  type: 'object',
  properties: { avus: { type: 'array', items: instantLaunchAvu } },
  required: ['avus'],
};

const instantLaunchMetadataBody: JsonSchema = {
  type: 'object',
  properties: {
    avus: {
      type: 'array',
      items: {
        type: 'object',
        description:
          "One of `attr` (the metadata service's name, which the web UI sends) or `attribute`; other fields of a listed AVU are ignored",
        properties: {
          attr: { type: 'string' },
          attribute: { type: 'string' },
          value: { type: 'string' },
          unit: { type: 'string' },
        },
        required: ['value'],
      },
    },
  },
  required: ['avus'],
};

const mappedInstantLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quick_launch_id: { type: 'string' },
    added_by: { type: 'string' },
    added_on: { type: 'string' },
  },
  required: ['id'],
};

const launchMappingAnswered: JsonSchema = {
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['glob', 'infoType'] },
    pattern: { type: 'string', description: 'The glob of file names, or the info type' },
    default: mappedInstantLaunch,
    compatible: { type: 'array', items: mappedInstantLaunch },
  },
  required: ['kind', 'pattern', 'default', 'compatible'],
};

const launchMappingSent: JsonSchema = {
  type: 'object',
  properties: {
    kind: {
      type: 'string',
      enum: ['glob', 'infoType', 'pattern'],
      description: '`pattern`: the earlier name of `glob`',
    },
    pattern: { type: 'string', description: "The glob or info type; the entry's name when absent" },
    default: {
      type: 'object',
      properties: { id: { type: 'string', format: 'uuid' } },
      required: ['id'],
      additionalProperties: true,
    },
    compatible: {
      type: 'array',
      items: { type: 'object', properties: { id: { type: 'string', format: 'uuid' } } },
    },
  },
  required: ['kind', 'default'],
};

const launchMappingVersion: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    version: { type: 'string' },
    mapping: { type: 'object', additionalProperties: launchMappingAnswered },
  },
  required: ['id', 'version', 'mapping'],
};

const launchMappingBody: JsonSchema = {
  type: 'object',
  description: 'The entries by name',
  additionalProperties: launchMappingSent,
};

const globalDefaultQuickLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    app_id: { type: 'string' },
    quick_launch_id: { type: 'string' },
  },
};

const userDefaultQuickLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    user: { type: 'string' },
    quick_launch_id: { type: 'string' },
    app_id: { type: 'string' },
  },
  required: ['id', 'user', 'quick_launch_id', 'app_id'],
};

const userDefaultQuickLaunchById: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    user: { type: 'string' },
    quick_launch_id: { type: 'string' },
    app_id: { type: 'string' },
  },
};

const favoriteQuickLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    quick_launch_id: { type: 'string' },
    user: { type: 'string' },
  },
  required: ['id', 'quick_launch_id', 'user'],
};

const quickLaunch: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    creator: { type: 'string' },
    app_id: { type: 'string' },
    app_version_id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    is_public: { type: 'boolean' },
    submission: storedSubmission,
  },
  required: [
    'id',
    'creator',
    'app_id',
    'app_version_id',
    'name',
    'description',
    'is_public',
    'submission',
  ],
};

const concurrentJobLimit: JsonSchema = {
  type: 'object',
  properties: {
    username: { type: 'string' },
    concurrent_jobs: { type: 'integer' },
    is_default: { type: 'boolean' },
  },
};

const viceDeployment: JsonSchema = {
  type: 'object',
  properties: {
    analysisID: { type: 'string' },
    externalID: { type: 'string' },
    host: { type: 'string' },
    name: { type: 'string' },
    analysisName: { type: 'string', description: 'The analysis name (as `name`)' },
    appID: { type: 'string' },
    appName: { type: 'string' },
    username: { type: 'string' },
    status: { type: 'string' },
    creationTimestamp: { type: 'string' },
    timeLimit: { type: 'string' },
  },
};

const viceAnalysisRequest: JsonSchema = {
  type: 'object',
  properties: { analysisID: { type: 'string' }, request: { type: 'string' } },
};

const viceListing: JsonSchema = {
  type: 'object',
  properties: {
    deployments: { type: 'array', items: viceDeployment },
    pods: { type: 'array', items: {} },
    configMaps: { type: 'array', items: {} },
    services: { type: 'array', items: {} },
    ingresses: { type: 'array', items: {} },
  },
};

const viceOperatorFields = {
  name: { type: 'string' },
  url: { type: 'string' },
  base_url: { type: 'string', nullable: true },
  tls_skip_verify: { type: 'boolean' },
  priority: { type: 'integer' },
  accepting_launches: { type: 'boolean' },
  deactivated: { type: 'boolean' },
};

const viceOperator: JsonSchema = { type: 'object', properties: viceOperatorFields };

const listedViceOperator: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, ...viceOperatorFields },
  required: [
    'id',
    'name',
    'url',
    'base_url',
    'tls_skip_verify',
    'priority',
    'accepting_launches',
    'deactivated',
  ],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /instantlaunches': {
    response: {
      '200': {
        type: 'object',
        properties: { instant_launches: { type: 'array', items: listedInstantLaunch } },
        required: ['instant_launches'],
      },
    },
  },
  'PUT /instantlaunches/': {
    response: { '200': instantLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'DELETE /instantlaunches/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /instantlaunches/{id}': { response: { '200': instantLaunch } },
  'POST /instantlaunches/{id}': {
    response: { '200': instantLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'GET /instantlaunches/{id}/full': { response: { '200': fullInstantLaunch } },
  'GET /instantlaunches/{id}/metadata': { response: { '200': instantLaunchMetadata } },
  'PUT /instantlaunches/admin/': {
    response: { '200': listedInstantLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'DELETE /instantlaunches/admin/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'POST /instantlaunches/admin/{id}': {
    response: { '200': instantLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'POST /instantlaunches/admin/{id}/metadata': {
    response: { '200': instantLaunchMetadata },
    body: instantLaunchMetadataBody,
  },
  'PUT /instantlaunches/admin/{id}/metadata': {
    response: { '200': instantLaunchMetadata },
    body: instantLaunchMetadataBody,
  },
  'GET /instantlaunches/full': {
    response: {
      '200': {
        type: 'object',
        properties: {
          instant_launches: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                quick_launch_id: { type: 'string' },
                added_by: { type: 'string' },
                added_on: { type: 'string' },
                quick_launch_name: { type: 'string' },
                quick_launch_description: { type: 'string' },
                quick_launch_creator: { type: 'string' },
                quick_launch_is_public: { type: 'boolean' },
                submission: storedSubmission,
                app_id: { type: 'string' },
                app_version_id: { type: 'string' },
                app_version: { type: 'string' },
                app_name: { type: 'string' },
                app_description: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  'DELETE /instantlaunches/mappings/defaults/latest': {
    response: { '200': launchMappingVersion },
  },
  'GET /instantlaunches/mappings/defaults/latest': {
    response: {
      '200': {
        type: 'object',
        description: 'The latest version; `{id: null, version: null, mapping: {}}` when none',
        properties: {
          id: { type: 'string', nullable: true },
          version: { type: 'string', nullable: true },
          mapping: { type: 'object', additionalProperties: launchMappingAnswered },
        },
        required: ['id', 'version', 'mapping'],
      },
    },
  },
  'POST /instantlaunches/mappings/defaults/latest': {
    response: { '200': launchMappingVersion },
    body: launchMappingBody,
  },
  'PUT /instantlaunches/mappings/defaults/latest': {
    response: { '200': launchMappingVersion },
    body: launchMappingBody,
  },
  'GET /instantlaunches/metadata': { response: { '200': instantLaunchMetadata } },
  'GET /instantlaunches/metadata/full': {
    response: {
      '200': {
        type: 'object',
        properties: { instant_launches: { type: 'array', items: fullInstantLaunch } },
        required: ['instant_launches'],
      },
    },
  },
  'GET /instantlaunches/quicklaunches/public': {
    response: {
      '200': {
        type: 'array',
        items: {
          type: 'object',
          properties: {
            id: { type: 'string' },
            creator: { type: 'string' },
            app_id: { type: 'string' },
            app_version_id: { type: 'string' },
            name: { type: 'string' },
            description: { type: 'string' },
            is_public: { type: 'boolean' },
            submission: storedSubmission,
          },
        },
      },
    },
  },
  'GET /quicklaunch/defaults/global': {
    response: { '200': { type: 'array', items: globalDefaultQuickLaunch } },
  },
  'POST /quicklaunch/defaults/global': {
    response: { '200': globalDefaultQuickLaunch },
    body: {
      type: 'object',
      properties: { app_id: { type: 'string' }, quick_launch_id: { type: 'string' } },
    },
  },
  'DELETE /quicklaunch/defaults/global/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /quicklaunch/defaults/global/{id}': { response: { '200': globalDefaultQuickLaunch } },
  'PATCH /quicklaunch/defaults/global/{id}': {
    response: { '200': globalDefaultQuickLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'GET /quicklaunch/defaults/user': {
    response: { '200': { type: 'array', items: userDefaultQuickLaunch } },
  },
  'POST /quicklaunch/defaults/user': {
    response: { '200': userDefaultQuickLaunch },
    body: {
      type: 'object',
      properties: { quick_launch_id: { type: 'string' }, app_id: { type: 'string' } },
    },
  },
  'DELETE /quicklaunch/defaults/user/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /quicklaunch/defaults/user/{id}': { response: { '200': userDefaultQuickLaunchById } },
  'PATCH /quicklaunch/defaults/user/{id}': {
    response: { '200': userDefaultQuickLaunchById },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'GET /quicklaunch/favorites': {
    response: { '200': { type: 'array', items: favoriteQuickLaunch } },
  },
  'POST /quicklaunch/favorites': {
    response: { '200': favoriteQuickLaunch },
    body: { type: 'object', properties: { quick_launch_id: { type: 'string' } } },
  },
  'DELETE /quicklaunch/favorites/{id}': {
    response: { '200': { type: 'object', properties: { id: { type: 'string' } } } },
  },
  'GET /quicklaunch/favorites/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          quick_launch_id: { type: 'string' },
          user: { type: 'string' },
        },
      },
    },
  },
  'GET /quicklaunches': { response: { '200': { type: 'array', items: quickLaunch } } },
  'POST /quicklaunches': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          creator: { type: 'string' },
          app_id: { type: 'string' },
          app_version_id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          is_public: { type: 'boolean' },
          submission: storedSubmission,
        },
        required: [
          'id',
          'creator',
          'app_id',
          'app_version_id',
          'name',
          'description',
          'is_public',
          'submission',
        ],
      },
    },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        app_id: { type: 'string' },
        is_public: { type: 'boolean' },
        submission: storedSubmission,
        creator: { type: 'string' },
        app_version_id: { type: 'string' },
      },
    },
  },
  'DELETE /quicklaunches/{id}': {
    response: {
      '200': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
  'GET /quicklaunches/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          creator: { type: 'string' },
          app_id: { type: 'string' },
          app_version_id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          is_public: { type: 'boolean' },
          submission: storedSubmission,
        },
        required: [
          'id',
          'creator',
          'app_id',
          'app_version_id',
          'name',
          'description',
          'is_public',
          'submission',
        ],
      },
    },
  },
  'PATCH /quicklaunches/{id}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          creator: { type: 'string' },
          app_id: { type: 'string' },
          app_version_id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          is_public: { type: 'boolean' },
          submission: storedSubmission,
        },
      },
    },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        submission: storedSubmission,
        is_public: { type: 'boolean' },
      },
    },
  },
  'GET /quicklaunches/{id}/app-info': {
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
          versions: {
            type: 'array',
            items: {
              type: 'object',
              properties: { version: { type: 'string' }, version_id: { type: 'string' } },
              required: ['version', 'version_id'],
            },
          },
          limitChecks: {
            type: 'object',
            properties: { canRun: { type: 'boolean' }, results: { type: 'array', items: {} } },
            required: ['canRun', 'results'],
          },
          groups: {
            type: 'array',
            items: {
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
              required: [
                'id',
                'name',
                'label',
                'description',
                'isVisible',
                'step_number',
                'parameters',
              ],
            },
          },
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
      },
    },
  },
  'GET /quicklaunches/apps/{appId}': { response: { '200': { type: 'array', items: quickLaunch } } },
  'GET /settings/concurrent-job-limits': {
    response: {
      '200': {
        type: 'object',
        properties: {
          limits: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                concurrent_jobs: { type: 'integer' },
                is_default: { type: 'boolean' },
                username: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  'DELETE /settings/concurrent-job-limits/{username}': { response: { '200': concurrentJobLimit } },
  'GET /settings/concurrent-job-limits/{username}': { response: { '200': concurrentJobLimit } },
  'PUT /settings/concurrent-job-limits/{username}': {
    response: { '200': concurrentJobLimit },
    body: { type: 'object', properties: { concurrent_jobs: { type: 'integer' } } },
  },
  'GET /vice/{host}/description': { response: { '200': viceDeployment } },
  'GET /vice/{host}/url-ready': {
    response: {
      '200': { type: 'object', properties: { ready: { type: 'boolean' } }, required: ['ready'] },
    },
  },
  'GET /vice/{id}/logs': {
    response: {
      '200': {
        type: 'object',
        properties: {
          since_time: { type: 'string' },
          lines: { type: 'array', items: { type: 'string' } },
        },
      },
    },
  },
  'GET /vice/{id}/time-limit': {
    response: { '200': { type: 'object', properties: { time_limit: { type: 'string' } } } },
  },
  'POST /vice/{id}/time-limit': {
    response: { '200': { type: 'object', properties: { time_limit: { type: 'string' } } } },
    noBody: true,
  },
  'GET /vice/admin/{host}/description': { response: { '200': viceDeployment } },
  'GET /vice/admin/{host}/url-ready': {
    response: { '200': { type: 'object', properties: { ready: { type: 'boolean' } } } },
  },
  'POST /vice/admin/analyses/{id}/download-input-files': {
    response: { '200': viceAnalysisRequest },
    noBody: true,
  },
  'POST /vice/admin/analyses/{id}/exit': { response: { '200': viceAnalysisRequest }, noBody: true },
  'GET /vice/admin/analyses/{id}/external-id': {
    response: { '200': { type: 'object', properties: { external_id: { type: 'string' } } } },
  },
  'POST /vice/admin/analyses/{id}/save-and-exit': {
    response: { '200': viceAnalysisRequest },
    noBody: true,
  },
  'POST /vice/admin/analyses/{id}/save-output-files': {
    response: { '200': viceAnalysisRequest },
    noBody: true,
  },
  'GET /vice/admin/analyses/{id}/time-limit': {
    response: { '200': { type: 'object', properties: { time_limit: { type: 'string' } } } },
  },
  'POST /vice/admin/analyses/{id}/time-limit': {
    response: { '200': { type: 'object', properties: { time_limit: { type: 'string' } } } },
    noBody: true,
  },
  'GET /vice/admin/listing': { response: { '200': viceListing } },
  'GET /vice/admin/operators': {
    response: {
      '200': {
        type: 'array',
        items: listedViceOperator,
        description: 'The operators, a bare array (the embedded platform has one, `local`)',
      },
    },
  },
  'POST /vice/admin/operators': {
    body: viceOperator,
    response: {
      '200': {
        type: 'object',
        properties: {
          name: { type: 'string' },
          url: { type: 'string' },
          tls_skip_verify: { type: 'boolean' },
          priority: { type: 'integer' },
        },
        description:
          'The operator (the embedded platform has one, from configuration, and refuses changes)',
      },
    },
  },
  'GET /vice/admin/operators/capacities': {
    response: {
      '200': {
        type: 'object',
        properties: {
          capacities: {
            type: 'array',
            items: {
              type: 'object',
              properties: { operator: { type: 'string' }, running: { type: 'integer' } },
              required: ['operator', 'running'],
            },
          },
        },
        required: ['capacities'],
      },
    },
  },
  'DELETE /vice/admin/operators/id/{id}': { response: { '200': viceOperator } },
  'PATCH /vice/admin/operators/id/{id}': { body: viceOperator, response: { '200': viceOperator } },
  'GET /vice/async-data': {
    response: {
      '200': {
        type: 'object',
        properties: {
          analysisID: { type: 'string' },
          subdomain: { type: 'string' },
          ipAddr: { type: 'string' },
        },
      },
    },
  },
  'GET /vice/listing': { response: { '200': viceListing } },
};
