// What the tools room's routes (tools and tool requests) take and answer, for the OpenAPI document:
// documentation only (the service's documented.ts composes the rooms' tables and says how they were
// recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import {
  containerImage,
  listedAppProperties,
  toolSummaryProperties,
  toolSummaryRequired,
  namedItem,
  elementType,
} from '../shared/index.ts';

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
  // The other fields are kept as the request gave them, when it did (tool-request-routes.ts).
  required: ['id', 'submitted_by', 'name', 'description', 'version', 'history'],
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
  properties: listedAppProperties,
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
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
  'POST /admin/tools/{toolId}/publish': { response: { '200': answeredTool }, noBody: true },
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
  'GET /tools/gpu-models': {
    response: {
      '200': {
        type: 'object',
        properties: { gpu_models: { type: 'array', items: { type: 'string' } } },
      },
    },
  },
};
