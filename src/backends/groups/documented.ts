// What the groups service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas } from '../../common/documented-schemas.js';

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /admin/communities': {
    response: {
      '200': {
        type: 'object',
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
                display_extension: { type: 'string' },
                display_name: { type: 'string' },
                extension: { type: 'string' },
              },
            },
          },
        },
      },
    },
  },
  'POST /admin/communities': {
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
    body: { type: 'object', properties: { name: { type: 'string' } } },
  },
  'DELETE /admin/communities/{name}': {
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
        },
      },
    },
  },
  'GET /admin/communities/{name}': {
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
  'PATCH /admin/communities/{name}': {
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
    body: { type: 'object', properties: { description: { type: 'string' } } },
  },
  'GET /admin/communities/{name}/admins': {
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
            },
          },
        },
      },
    },
  },
  'POST /admin/communities/{name}/admins': {
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
              },
            },
          },
        },
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /admin/communities/{name}/admins/deleter': {
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
  'DELETE /admin/groups/de-users/members/{subject}': {
    response: {
      '200': {
        type: 'object',
        properties: { success: { type: 'boolean' }, subject_id: { type: 'string' } },
      },
    },
  },
  'GET /admin/users/{username}/groups': {
    response: {
      '200': {
        type: 'object',
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
                display_extension: { type: 'string' },
                display_name: { type: 'string' },
                extension: { type: 'string' },
                detail: { type: 'object', additionalProperties: true },
              },
              required: [
                'id',
                'name',
                'type',
                'description',
                'display_extension',
                'display_name',
                'extension',
              ],
            },
          },
        },
        required: ['groups'],
      },
    },
  },
  'GET /collaborator-lists': {
    response: {
      '200': {
        type: 'object',
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
                display_extension: { type: 'string' },
                display_name: { type: 'string' },
                extension: { type: 'string' },
              },
              required: [
                'id',
                'name',
                'type',
                'description',
                'display_extension',
                'display_name',
                'extension',
              ],
            },
          },
        },
      },
    },
  },
  'POST /collaborator-lists': {
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
            required: [
              'created_at',
              'created_by',
              'modified_at',
              'has_composite',
              'is_composite_factor',
              'type_names',
            ],
          },
        },
        required: [
          'id',
          'name',
          'type',
          'description',
          'display_extension',
          'display_name',
          'extension',
          'detail',
        ],
      },
    },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'DELETE /collaborator-lists/{name}': {
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
        },
        required: [
          'id',
          'name',
          'type',
          'description',
          'display_extension',
          'display_name',
          'extension',
        ],
      },
    },
  },
  'GET /collaborator-lists/{name}': {
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
  'PATCH /collaborator-lists/{name}': {
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
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'GET /collaborator-lists/{name}/members': {
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
  'POST /collaborator-lists/{name}/members': {
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
              },
              required: ['success', 'subject_id', 'subject_name'],
            },
          },
        },
        required: ['results'],
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /collaborator-lists/{name}/members/deleter': {
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
  'GET /communities': {
    response: {
      '200': {
        type: 'object',
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
                display_extension: { type: 'string' },
                display_name: { type: 'string' },
                extension: { type: 'string' },
              },
            },
          },
        },
        required: ['groups'],
      },
    },
  },
  'POST /communities': {
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
            required: [
              'created_at',
              'created_by',
              'modified_at',
              'has_composite',
              'is_composite_factor',
              'type_names',
            ],
          },
        },
        required: [
          'id',
          'name',
          'type',
          'description',
          'display_extension',
          'display_name',
          'extension',
          'detail',
        ],
      },
    },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'DELETE /communities/{name}': {
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
        },
      },
    },
  },
  'GET /communities/{name}': {
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
  'PATCH /communities/{name}': {
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
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'GET /communities/{name}/admins': {
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
      },
    },
  },
  'POST /communities/{name}/admins': {
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
              },
            },
          },
        },
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /communities/{name}/admins/deleter': {
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
  'POST /communities/{name}/join': {
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
              },
            },
          },
        },
      },
    },
    noBody: true,
  },
  'POST /communities/{name}/leave': {
    response: {
      '200': {
        type: 'object',
        properties: {
          results: {
            type: 'array',
            items: {
              type: 'object',
              properties: { success: { type: 'boolean' }, subject_id: { type: 'string' } },
            },
          },
        },
      },
    },
    noBody: true,
  },
  'GET /communities/{name}/members': {
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
      },
    },
  },
  'GET /subjects': {
    response: {
      '200': {
        type: 'object',
        properties: {
          subjects: {
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
            },
          },
        },
        required: ['subjects'],
      },
    },
  },
  'GET /teams': {
    response: {
      '200': {
        type: 'object',
        properties: {
          groups: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                type: { type: 'string' },
                description: { type: 'string' },
                display_extension: { type: 'string' },
                display_name: { type: 'string' },
                extension: { type: 'string' },
                detail: { type: 'object', additionalProperties: true },
              },
              required: [
                'id',
                'name',
                'type',
                'description',
                'display_extension',
                'display_name',
                'extension',
              ],
            },
          },
        },
        required: ['groups'],
      },
    },
  },
  'POST /teams': {
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
            required: [
              'created_at',
              'created_by',
              'modified_at',
              'has_composite',
              'is_composite_factor',
              'type_names',
            ],
          },
        },
        required: [
          'id',
          'name',
          'type',
          'description',
          'display_extension',
          'display_name',
          'extension',
          'detail',
        ],
      },
    },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        public_privileges: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  'DELETE /teams/{name}': {
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
        },
      },
    },
  },
  'GET /teams/{name}': {
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
  'PATCH /teams/{name}': {
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
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, description: { type: 'string' } },
    },
  },
  'POST /teams/{name}/join': {
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
              },
            },
          },
        },
      },
    },
    noBody: true,
  },
  'POST /teams/{name}/join-request': {
    response: { '200': { type: 'object', additionalProperties: true } },
    body: { type: 'object', properties: { message: { type: 'string' } } },
  },
  'POST /teams/{name}/join-request/{requester}/deny': {
    response: { '200': { type: 'object', additionalProperties: true } },
    body: { type: 'object', properties: { message: { type: 'string' } } },
  },
  'POST /teams/{name}/leave': {
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
                reason: { type: 'string' },
              },
            },
          },
        },
      },
    },
    noBody: true,
  },
  'GET /teams/{name}/members': {
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
  'POST /teams/{name}/members': {
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
        required: ['results'],
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
  'POST /teams/{name}/members/deleter': {
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
                reason: { type: 'string' },
              },
              required: ['success', 'subject_id'],
            },
          },
        },
        required: ['results'],
      },
    },
    body: { type: 'object', properties: { members: { type: 'array', items: { type: 'string' } } } },
  },
  'GET /teams/{name}/privileges': {
    response: {
      '200': {
        type: 'object',
        properties: {
          privileges: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                type: { type: 'string' },
                name: { type: 'string' },
                allowed: { type: 'boolean' },
                revokable: { type: 'boolean' },
                subject: { type: 'object', additionalProperties: true },
              },
            },
          },
        },
      },
    },
  },
  'POST /teams/{name}/privileges': {
    response: {
      '200': {
        type: 'object',
        properties: {
          privileges: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                type: { type: 'string' },
                name: { type: 'string' },
                allowed: { type: 'boolean' },
                revokable: { type: 'boolean' },
                subject: { type: 'object', additionalProperties: true },
              },
              required: ['type', 'name', 'allowed', 'revokable', 'subject'],
            },
          },
        },
      },
    },
    body: {
      type: 'object',
      properties: {
        updates: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              subject_id: { type: 'string' },
              privileges: { type: 'array', items: {} },
            },
          },
        },
      },
    },
  },
};
