// Tag admin-filesystem: updating a metadata template (routes.md §13). The other template routes
// are passthrough rows in data.ts; this one reshapes: the gateway's POST becomes the metadata
// service's PUT, and `created_by` / `modified_by` are stripped at every level (an administrator
// sends back a template as fetched; who changed it is the caller, not what the body claims).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { type DataMetadataDeps } from './metadata-support.ts';
import { metadataJson } from '../../clients/metadata.ts';

const TemplateParams = Type.Object({ templateId: Type.String({ description: 'Template UUID' }) });
const TemplateBody = Type.Object(
  {
    name: Type.String(),
    description: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    deleted: Type.Optional(Type.Boolean()),
    attributes: Type.Array(Type.Unknown(), {
      description:
        '[{id?, name, description, type, required?, values?: [{value, is_default?}], settings?, attributes?}]',
    }),
  },
  { additionalProperties: true },
);

const authorKeys = new Set(['created_by', 'modified_by']);

/** The value without `created_by` / `modified_by`, however deep. */
function withoutAuthors(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutAuthors);
  if (typeof value !== 'object' || value === null) return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !authorKeys.has(key))
      .map(([key, item]) => [key, withoutAuthors(item)]),
  );
}

export async function metadataTemplateRoutes(
  app: FastifyInstance,
  deps: DataMetadataDeps,
): Promise<void> {
  app.post('/admin/filesystem/metadata/templates/:templateId', {
    ...documentedNotEnforced,
    config: { auth: 'data-store-admin' },
    schema: {
      tags: ['admin-filesystem'],
      summary: 'Update a metadata template',
      description:
        'Replaces the template (metadata `PUT /admin/templates/{id}`); `created_by` and `modified_by` in the body are ignored. Answers the template with its attributes.',
      security: routeSecurity('data-store-admin'),
      params: TemplateParams,
      body: TemplateBody,
      response: {
        200: Type.Object(
          {
            id: Type.String(),
            name: Type.String(),
            attributes: Type.Array(Type.Object({}, { additionalProperties: true })),
          },
          { additionalProperties: true, description: 'The template with its attributes' },
        ),
      },
    },
    handler: async (request) => {
      const { templateId } = request.params as { templateId: string };
      return metadataJson(deps, request, {
        method: 'PUT',
        path: `/admin/templates/${encodeURIComponent(templateId)}`,
        json: withoutAuthors(request.body),
      });
    },
  });
}
