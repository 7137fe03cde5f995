import type { FastifyReply } from 'fastify';
import { Type } from 'typebox';
import { contentDisposition } from '../../common/content-disposition.ts';
import { userOf, userQuery, type MetadataRoutes } from './requests.ts';
import { booleanParam } from '../../common/query-params.ts';
import { templateInput } from './template-body.ts';
import { blankCsv, guideCsv, templateZip } from './template-files.ts';
import {
  deleteTemplate,
  findAttribute,
  listTemplates,
  requireTemplate,
  saveTemplate,
} from './template-model.ts';
import { gatewayError } from '../../common/errors.ts';

/**
 * Metadata templates (backends.md §3.5): listing, one template with its attributes, its CSV and
 * zip downloads, one attribute; the admin listing (deleted included), create, update and delete
 * (soft unless `permanent`). Who is an admin is the gateway's business.
 */

const templateParams = Type.Object({ templateId: Type.String({ minLength: 1 }) });
const attributeParams = Type.Object({ attrId: Type.String({ minLength: 1 }) });

/** `attachment` (default true): whether the download is offered as a file to save. */
function download(
  reply: FastifyReply,
  query: unknown,
  type: string,
  fileName: string,
  body: string | Buffer,
): FastifyReply {
  const kind = booleanParam(query, 'attachment', true) ? 'attachment' : 'inline';
  return reply
    .type(type)
    .header('content-disposition', contentDisposition(kind, fileName))
    .send(body);
}

export const templateRoutes: MetadataRoutes = async (app, { db, now }) => {
  app.get('/templates', { schema: { querystring: userQuery } }, async (request) => {
    userOf(request);
    return { metadata_templates: await listTemplates(db, false) };
  });

  app.get(
    '/templates/attr/:attrId',
    { schema: { querystring: userQuery, params: attributeParams } },
    async (request) => {
      userOf(request);
      const { attrId } = request.params as { attrId: string };
      const attribute = await findAttribute(db, attrId);
      if (!attribute)
        throw gatewayError('ERR_NOT_FOUND', `metadata attribute ${attrId} not found`, {
          id: attrId,
        });
      return attribute;
    },
  );

  app.get(
    '/templates/:templateId',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request) => {
      userOf(request);
      return requireTemplate(db, (request.params as { templateId: string }).templateId);
    },
  );

  app.get(
    '/templates/:templateId/blank-csv',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request, reply) => {
      userOf(request);
      const template = await requireTemplate(
        db,
        (request.params as { templateId: string }).templateId,
      );
      return download(
        reply,
        request.query,
        'text/csv; charset=utf-8',
        'metadata.csv',
        blankCsv(template),
      );
    },
  );

  app.get(
    '/templates/:templateId/guide-csv',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request, reply) => {
      userOf(request);
      const template = await requireTemplate(
        db,
        (request.params as { templateId: string }).templateId,
      );
      return download(
        reply,
        request.query,
        'text/csv; charset=utf-8',
        'guide.csv',
        guideCsv(template),
      );
    },
  );

  app.get(
    '/templates/:templateId/zip-csv',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request, reply) => {
      userOf(request);
      const template = await requireTemplate(
        db,
        (request.params as { templateId: string }).templateId,
      );
      return download(
        reply,
        request.query,
        'application/zip',
        'template.zip',
        templateZip(template),
      );
    },
  );

  app.get('/admin/templates', { schema: { querystring: userQuery } }, async (request) => {
    userOf(request);
    return { metadata_templates: await listTemplates(db, true) };
  });

  app.post('/admin/templates', { schema: { querystring: userQuery } }, async (request) => {
    const user = userOf(request);
    const id = await saveTemplate(db, user, now(), templateInput(request.body));
    return requireTemplate(db, id);
  });

  app.put(
    '/admin/templates/:templateId',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request) => {
      const user = userOf(request);
      const { templateId } = request.params as { templateId: string };
      const input = templateInput(request.body);
      await saveTemplate(db, user, now(), input, templateId);
      return requireTemplate(db, templateId);
    },
  );

  // The reference service answers an empty 200; 204 says the same without a body to misparse.
  app.delete(
    '/admin/templates/:templateId',
    { schema: { querystring: userQuery, params: templateParams } },
    async (request, reply) => {
      const user = userOf(request);
      const { templateId } = request.params as { templateId: string };
      await deleteTemplate(
        db,
        user,
        now(),
        templateId,
        booleanParam(request.query, 'permanent', false),
      );
      return reply.code(204).send();
    },
  );
};
