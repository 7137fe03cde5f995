// What the jobs room's routes (analyses and the job callback) take and answer, for the OpenAPI
// document: documentation only (the service's documented.ts composes the rooms' tables and says how
// they were recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import { namedItem, appJobView, analysisSelection } from '../shared/index.ts';

const analysisStatus: JsonSchema = {
  type: 'object',
  properties: { id: { type: 'string' }, status: { type: 'string' } },
  required: ['id', 'status'],
};

const analysisIds: JsonSchema = {
  type: 'object',
  properties: { analyses: { type: 'array', items: { type: 'string' } } },
  required: ['analyses'],
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
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
};
