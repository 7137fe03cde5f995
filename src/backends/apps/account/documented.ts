// What the account room's routes (bootstrap, workspaces, logins, administrators' workspaces, the
// workshop group) take and answer, for the OpenAPI document: documentation only (the service's
// documented.ts composes the rooms' tables and says how they were recorded).
import type { DocumentedSchemas } from '../../../common/documented-schemas.ts';

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
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
};
