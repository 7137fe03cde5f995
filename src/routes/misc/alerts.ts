// Tag misc: global alerts (routes.md §7, backends.md §7.5), banners every user sees between two
// dates. Listings pass through; the admin routes translate the gateway's kebab-case body
// (`start-date`, `end-date`, `alert-text`) into user-info's (`start_date`, `end_date`, `alert`).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import { jsonAnswer } from '../../http/backend-answer.ts';
import { routeSecurity } from '../../http/openapi.ts';
import type { PassthroughRoute } from '../../http/passthrough.ts';
import type { Tag } from '../shared/tags.ts';
import type { Forwarder } from '../../http/proxy.ts';

export const alertPassthroughs: PassthroughRoute<Tag>[] = [
  {
    method: 'GET',
    path: '/alerts/all',
    backend: 'user-info',
    auth: 'optional',
    tag: 'misc',
    summary: 'List all global alerts',
  },
  {
    method: 'GET',
    path: '/alerts/active',
    backend: 'user-info',
    auth: 'optional',
    tag: 'misc',
    summary: 'List active global alerts',
  },
];

const time = (description: string) =>
  Type.String({
    description: `${description}: an RFC 3339 date-time such as 2030-01-31T12:00:00Z`,
  });
const Alert = Type.Object({
  start_date: Type.Union([Type.String(), Type.Null()]),
  end_date: Type.String(),
  alert: Type.String(),
});

export async function alertAdminRoutes(
  app: FastifyInstance,
  { forwarder }: { forwarder: Forwarder },
): Promise<void> {
  const send = async (
    request: FastifyRequest,
    method: 'POST' | 'DELETE',
    json: Record<string, unknown>,
  ) =>
    jsonAnswer<unknown>(
      'user-info',
      await forwarder.call(
        'user-info',
        { method, path: '/alerts', identityStyle: 'none', json },
        request.id,
      ),
    );

  app.post('/admin/alerts', {
    config: { auth: 'admin' },
    schema: {
      tags: ['misc'],
      summary: 'Add a global alert',
      description:
        'An alert is identified by its end date and text; adding the same one twice is 400 ERR_EXISTS (as user-info answers).',
      security: routeSecurity('admin'),
      body: Type.Object({
        'start-date': Type.Optional(time('When it starts showing (default: now)')),
        'end-date': time('When it stops showing'),
        'alert-text': Type.String({ minLength: 1 }),
      }),
      response: { 200: Alert },
    },
    handler: async (request) => {
      const body = request.body as {
        'start-date'?: string;
        'end-date': string;
        'alert-text': string;
      };
      const alert = {
        start_date: body['start-date'] ?? null,
        end_date: body['end-date'],
        alert: body['alert-text'],
      };
      await send(request, 'POST', alert);
      return alert;
    },
  });

  app.delete('/admin/alerts', {
    config: { auth: 'admin' },
    schema: {
      tags: ['misc'],
      summary: 'Remove a global alert',
      security: routeSecurity('admin'),
      body: Type.Object({
        'end-date': time('Its end date'),
        'alert-text': Type.String({ minLength: 1 }),
      }),
      response: { 200: Type.Object({ 'end-date': Type.String(), 'alert-text': Type.String() }) },
    },
    handler: async (request) => {
      const body = request.body as { 'end-date': string; 'alert-text': string };
      await send(request, 'DELETE', { end_date: body['end-date'], alert: body['alert-text'] });
      return body;
    },
  });
}
