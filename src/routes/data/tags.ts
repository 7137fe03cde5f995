// Tags: tags (routes.md §20). Tags are each user's own (the metadata service keeps them per
// caller); attaching one to a file or folder, or listing an entry's tags, first asks data-info
// whether the caller can read the entry (404 otherwise) and what kind it is.
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import { documentedNotEnforced, routeSecurity } from '../../http/openapi.ts';
import { queryNormalizer } from '../../common/query-params.ts';
import { dataInfoCall, readableStats, type EntryStat } from '../../clients/data-info.ts';
import { entryId, type DataMetadataDeps } from './metadata-support.ts';
import { metadataJson, targetType } from '../../clients/metadata.ts';
import { gatewayError } from '../../common/errors.ts';

export const dataTagPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: ['GET', 'DELETE'],
    path: '/secured/filesystem/entry/tags',
    backend: 'metadata',
    backendPath: '/filesystem/data/tags',
    tag: 'tags',
    summary: 'List or detach all tags the user attached',
  },
  {
    method: 'GET',
    path: '/secured/tags/suggestions',
    backend: 'metadata',
    backendPath: '/tags/suggestions',
    tag: 'tags',
    summary: 'Suggest tags',
  },
  {
    method: ['GET', 'POST', 'DELETE'],
    path: '/secured/tags/user',
    backend: 'metadata',
    backendPath: '/tags/user',
    tag: 'tags',
    summary: "List, create (`{value, description?}` → `{id}`) or delete all of the user's tags",
  },
  {
    method: ['PATCH', 'DELETE'],
    path: '/secured/tags/user/{tag-id}',
    backend: 'metadata',
    backendPath: '/tags/user/{tag-id}',
    tag: 'tags',
    summary: "Change or delete one of the user's tags",
  },
];

const Tag = Type.Object({
  id: Type.String(),
  value: Type.String(),
  description: Type.Optional(Type.String()),
});
const EntryParams = Type.Object({ entryId: Type.String({ description: 'File or folder UUID' }) });
const PatchQuery = Type.Object(
  { type: Type.Union([Type.Literal('attach'), Type.Literal('detach')]) },
  { additionalProperties: true },
);
const PatchBody = Type.Object({
  tags: Type.Array(Type.String({ description: 'Tag UUID' }), { maxItems: 1000 }),
});

/** The entry's stat; 404 when it does not exist or the caller cannot read it (both look the same to the caller). */
async function readableEntry(
  deps: DataMetadataDeps,
  request: Parameters<typeof dataInfoCall>[1],
  id: string,
): Promise<EntryStat> {
  const stat = (
    await readableStats<EntryStat>(dataInfoCall(deps, request), [id], 'id,path,type,permission')
  ).get(id);
  if (!stat)
    throw gatewayError(
      'ERR_DOES_NOT_EXIST',
      `no file or folder with the id ${id} is readable by the caller`,
      { id },
    );
  return stat;
}

const userOptions = (summary: string, description: string, schema: Record<string, unknown>) => ({
  ...documentedNotEnforced,
  config: { auth: 'user' as const },
  schema: { tags: ['tags'], summary, description, security: routeSecurity('user'), ...schema },
});

export async function dataTagRoutes(app: FastifyInstance, deps: DataMetadataDeps): Promise<void> {
  app.get('/secured/filesystem/entry/:entryId/tags', {
    ...userOptions(
      "List the caller's tags on a file or folder",
      '404 when the entry does not exist or the caller cannot read it.',
      {
        params: EntryParams,
        response: { 200: Type.Object({ tags: Type.Array(Tag) }) },
      },
    ),
    handler: async (request) => {
      const stat = await readableEntry(
        deps,
        request,
        entryId((request.params as { entryId: string }).entryId, 'entry-id'),
      );
      return metadataJson(deps, request, {
        method: 'GET',
        path: `/filesystem/data/${stat.id}/tags`,
      });
    },
  });

  app.patch('/secured/filesystem/entry/:entryId/tags', {
    ...userOptions(
      'Attach or detach tags',
      "`type=attach|detach`; the tags must be the caller's own (404 otherwise); 404 when the entry does not exist or the caller cannot read it.",
      {
        params: EntryParams,
        querystring: PatchQuery,
        body: PatchBody,
        response: { 200: Type.Null({ description: 'Done: the answer has no body' }) },
      },
    ),
    preValidation: queryNormalizer(),
    handler: async (request, reply) => {
      const stat = await readableEntry(
        deps,
        request,
        entryId((request.params as { entryId: string }).entryId, 'entry-id'),
      );
      const { type } = request.query as { type: 'attach' | 'detach' };
      await metadataJson(deps, request, {
        method: 'PATCH',
        path: `/filesystem/data/${stat.id}/tags`,
        query: { 'data-type': targetType(stat), type },
        json: { tags: (request.body as { tags: string[] }).tags },
      });
      return reply.code(200).send();
    },
  });
}
