// What the groups service's routes that the gateway forwards to take and answer, for the
// OpenAPI document (EmbeddedService.documented): documentation only, never used to validate a
// request or to serialise an answer. Recorded from the requests and answers of the tests (a key
// present in every one of three or more answers is listed as required; nesting below three levels
// is left open), a few routes the tests do not reach written by hand; a route's own schemas win
// over its entry here.
import type { DocumentedSchemas, JsonSchema } from '../../common/documented-schemas.ts';

// Shapes that several routes take or answer, written once.

const group: JsonSchema = {
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
};

const subject: JsonSchema = {
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
};

const groupDetail: JsonSchema = {
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
        created_by_detail: subject,
        modified_at: { type: 'integer' },
        has_composite: { type: 'boolean' },
        is_composite_factor: { type: 'boolean' },
        type_names: { type: 'array', items: {} },
      },
    },
  },
};

const memberResults: JsonSchema = {
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
};

const memberNames: JsonSchema = {
  type: 'object',
  properties: { members: { type: 'array', items: { type: 'string' } } },
};

const memberResult: JsonSchema = {
  type: 'object',
  properties: {
    success: { type: 'boolean' },
    subject_id: { type: 'string' },
    reason: { type: 'string' },
  },
  required: ['success', 'subject_id'],
};

const memberRemovalResults: JsonSchema = {
  type: 'object',
  properties: { results: { type: 'array', items: memberResult } },
};

const membershipResult: JsonSchema = {
  type: 'object',
  properties: { success: { type: 'boolean' }, subject_id: { type: 'string' } },
};

const groupList: JsonSchema = {
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
};

const collaboratorList: JsonSchema = {
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
  required: ['id', 'name', 'type', 'description', 'display_extension', 'display_name', 'extension'],
};

const createdGroup: JsonSchema = {
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
        created_by_detail: subject,
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
};

const groupBody: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, description: { type: 'string' } },
};

const member: JsonSchema = {
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
};

const memberList: JsonSchema = {
  type: 'object',
  properties: { members: { type: 'array', items: member } },
  required: ['members'],
};

const communityMemberList: JsonSchema = {
  type: 'object',
  properties: { members: { type: 'array', items: member } },
};

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /admin/communities': {
    response: {
      '200': { type: 'object', properties: { groups: { type: 'array', items: group } } },
    },
  },
  'POST /admin/communities': {
    response: { '200': groupDetail },
    body: { type: 'object', properties: { name: { type: 'string' } } },
  },
  'DELETE /admin/communities/{name}': { response: { '200': group } },
  'GET /admin/communities/{name}': { response: { '200': groupDetail } },
  'PATCH /admin/communities/{name}': {
    response: { '200': groupDetail },
    body: { type: 'object', properties: { description: { type: 'string' } } },
  },
  'GET /admin/communities/{name}/admins': {
    response: {
      '200': { type: 'object', properties: { members: { type: 'array', items: subject } } },
    },
  },
  'POST /admin/communities/{name}/admins': {
    response: { '200': memberResults },
    body: memberNames,
  },
  'POST /admin/communities/{name}/admins/deleter': {
    response: { '200': memberRemovalResults },
    body: memberNames,
  },
  'DELETE /admin/groups/de-users/members/{subject}': { response: { '200': membershipResult } },
  'GET /admin/users/{username}/groups': { response: { '200': groupList } },
  'GET /collaborator-lists': {
    response: {
      '200': { type: 'object', properties: { groups: { type: 'array', items: collaboratorList } } },
    },
  },
  'POST /collaborator-lists': { response: { '200': createdGroup }, body: groupBody },
  'DELETE /collaborator-lists/{name}': { response: { '200': collaboratorList } },
  'GET /collaborator-lists/{name}': { response: { '200': groupDetail } },
  'PATCH /collaborator-lists/{name}': { response: { '200': groupDetail }, body: groupBody },
  'GET /collaborator-lists/{name}/members': { response: { '200': memberList } },
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
    body: memberNames,
  },
  'POST /collaborator-lists/{name}/members/deleter': {
    response: { '200': memberRemovalResults },
    body: memberNames,
  },
  'GET /communities': {
    response: {
      '200': {
        type: 'object',
        properties: { groups: { type: 'array', items: group } },
        required: ['groups'],
      },
    },
  },
  'POST /communities': { response: { '200': createdGroup }, body: groupBody },
  'DELETE /communities/{name}': { response: { '200': group } },
  'GET /communities/{name}': { response: { '200': groupDetail } },
  'PATCH /communities/{name}': { response: { '200': groupDetail }, body: groupBody },
  'GET /communities/{name}/admins': { response: { '200': communityMemberList } },
  'POST /communities/{name}/admins': { response: { '200': memberResults }, body: memberNames },
  'POST /communities/{name}/admins/deleter': {
    response: { '200': memberRemovalResults },
    body: memberNames,
  },
  'POST /communities/{name}/join': { response: { '200': memberResults }, noBody: true },
  'POST /communities/{name}/leave': {
    response: {
      '200': {
        type: 'object',
        properties: { results: { type: 'array', items: membershipResult } },
      },
    },
    noBody: true,
  },
  'GET /communities/{name}/members': { response: { '200': communityMemberList } },
  'GET /subjects': {
    response: {
      '200': {
        type: 'object',
        properties: { subjects: { type: 'array', items: subject } },
        required: ['subjects'],
      },
    },
  },
  'GET /teams': { response: { '200': groupList } },
  'POST /teams': {
    response: { '200': createdGroup },
    body: {
      type: 'object',
      properties: {
        name: { type: 'string' },
        description: { type: 'string' },
        public_privileges: { type: 'array', items: { type: 'string' } },
      },
    },
  },
  'DELETE /teams/{name}': { response: { '200': group } },
  'GET /teams/{name}': { response: { '200': groupDetail } },
  'PATCH /teams/{name}': { response: { '200': groupDetail }, body: groupBody },
  'POST /teams/{name}/join': { response: { '200': memberResults }, noBody: true },
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
  'GET /teams/{name}/members': { response: { '200': memberList } },
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
    body: memberNames,
  },
  'POST /teams/{name}/members/deleter': {
    response: {
      '200': {
        type: 'object',
        properties: { results: { type: 'array', items: memberResult } },
        required: ['results'],
      },
    },
    body: memberNames,
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
