// Tag vice: the users' VICE routes that routes.md §19 makes of a permission check and an
// administrators' call to the interactive-apps service: which analysis a session is
// (`/vice/async-data`, answered only to those who may read it, never echoing the id), a session's
// external id (`read`), and ending one's own session (`write` or `own`). The caller's level on an
// analysis is the apps service's answer (its listing's `permission`), wherever that service runs.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { analysesListing } from '../../clients/apps.ts';
import { ErrorAnswer } from '../../common/error-replies.ts';
import { gatewayError } from '../../common/errors.ts';
import { routeSecurity, takesNoBody } from '../../http/openapi.ts';
import type { AreaDeps } from '../shared/area.ts';

type AnalysisParams = { Params: { id: string } };

export async function viceUserRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  const { forwarder } = deps;

  /** The caller's level on an analysis: 404 (naming nothing) when they have none. */
  const levelOn = async (request: FastifyRequest, id: string, what: string) => {
    const listing = await analysesListing(
      { forwarder, identity: request.identity, requestId: request.id },
      { filter: JSON.stringify([{ field: 'id', value: id }]), limit: '1' },
    );
    const found = (listing.analyses ?? [])[0] as { permission?: string } | undefined;
    if (!found) throw gatewayError('ERR_NOT_FOUND', `no ${what}`);
    return found.permission ?? 'read';
  };
  const admin = <T>(method: 'GET' | 'POST', path: string, request: FastifyRequest) =>
    forwarder.callJson<T>(
      'interactive-apps',
      { method, path, identity: undefined, identityStyle: 'none' },
      request.id,
    );

  app.get('/vice/async-data', {
    config: { auth: 'user' },
    schema: {
      tags: ['vice'],
      summary: 'Which analysis an interactive session is (only for those who may read it)',
      security: routeSecurity('user'),
      querystring: Type.Object({ 'external-id': Type.String({ minLength: 1 }) }),
      response: {
        200: Type.Object(
          { analysisID: Type.String(), subdomain: Type.String(), ipAddr: Type.String() },
          { additionalProperties: true },
        ),
        404: ErrorAnswer,
      },
    },
    handler: async (request: FastifyRequest<{ Querystring: { 'external-id': string } }>) => {
      const externalId = request.query['external-id'];
      const data = await admin<{ analysisID: string }>(
        'GET',
        `/vice/async-data?external-id=${encodeURIComponent(externalId)}`,
        request,
      ).catch(() => undefined);
      // A session the caller may not read is answered as one that does not exist.
      if (!data) throw gatewayError('ERR_NOT_FOUND', 'no such interactive session');
      await levelOn(request, data.analysisID, 'such interactive session');
      return data;
    },
  });

  app.get<AnalysisParams>('/vice/analyses/:id/external-id', {
    config: { auth: 'user' },
    schema: {
      tags: ['vice'],
      summary: "An interactive analysis's external id (its session's host)",
      security: routeSecurity('user'),
      params: Type.Object({ id: Type.String() }),
      response: { 200: Type.Object({ externalID: Type.String() }), 404: ErrorAnswer },
    },
    handler: async (request) => {
      await levelOn(request, request.params.id, `analysis ${request.params.id}`);
      const answer = await admin<{ external_id: string }>(
        'GET',
        `/vice/admin/analyses/${encodeURIComponent(request.params.id)}/external-id`,
        request,
      );
      return { externalID: answer.external_id };
    },
  });

  app.post<AnalysisParams>('/vice/analyses/:id/exit', {
    config: { auth: 'user' },
    schema: {
      tags: ['vice'],
      summary: 'End an interactive session without saving its outputs (write or own)',
      security: routeSecurity('user'),
      ...takesNoBody,
      params: Type.Object({ id: Type.String() }),
      response: {
        200: Type.Object({}, { additionalProperties: true }),
        403: ErrorAnswer,
        404: ErrorAnswer,
      },
    },
    handler: async (request) => {
      const level = await levelOn(request, request.params.id, `analysis ${request.params.id}`);
      if (level !== 'write' && level !== 'own')
        throw gatewayError('ERR_FORBIDDEN', `you may not end analysis ${request.params.id}`, {
          id: request.params.id,
        });
      return admin<Record<string, unknown>>(
        'POST',
        `/vice/admin/analyses/${encodeURIComponent(request.params.id)}/exit`,
        request,
      );
    },
  });
}
