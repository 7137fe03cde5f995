// Tag support: the web UI's feedback form (routes.md §23), anonymous callers too. The form's
// fields become the body of a message to the support address (SUPPORT_EMAIL_TO), sent through
// the email service from SUPPORT_EMAIL_FROM; the sender's own address, when given, is the
// Reply-To, never the From (a mail server would refuse to speak for another domain).
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import { sendEmail } from '../clients/email.ts';
import { documentedNotEnforced, routeSecurity } from '../http/openapi.ts';
import type { AreaDeps } from './shared/area.ts';

const SupportBody = Type.Object({
  email: Type.Optional(
    Type.String({
      maxLength: 320,
      pattern: '^[^\\s@<>,]+@[^\\s@<>,]+$',
      description: 'Where to answer',
    }),
  ),
  subject: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
  fields: Type.Record(Type.String({ maxLength: 200 }), Type.Unknown(), {
    description: 'The form’s fields, each one line of the message',
  }),
});
type SupportRequest = { email?: string; subject?: string; fields: Record<string, unknown> };

const defaultSubject = 'DE Support Request';

/** One `name: value` line per field (values that are not text as JSON), then who sent it. */
function messageText(fields: Record<string, unknown>, sender: string): string {
  const lines = Object.entries(fields).map(
    ([name, value]) => `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`,
  );
  return [...lines, '', `Sent by: ${sender}`].join('\n');
}

export async function supportRoutes(app: FastifyInstance, deps: AreaDeps): Promise<void> {
  app.route({
    method: 'POST',
    url: '/support-email',
    config: { auth: 'optional' },
    ...documentedNotEnforced,
    schema: {
      tags: ['support'],
      security: routeSecurity('optional'),
      summary: 'Send a message to support',
      description: `The fields, one line each, go to the support address; \`subject\` defaults to "${defaultSubject}" and \`email\` becomes the Reply-To.`,
      body: SupportBody,
      response: { 200: Type.Object({ status: Type.String() }) },
    },
    handler: async (request) => {
      const { email, subject, fields } = request.body as SupportRequest;
      const identity = request.identity;
      const sender = identity
        ? `${identity.username}${identity.email ? ` <${identity.email}>` : ''}`
        : `anonymous${email ? ` <${email}>` : ''}`;
      return sendEmail(deps, request.id, {
        to: deps.config.email.supportTo,
        from_addr: deps.config.email.defaultFrom,
        ...(email ? { reply_to: email } : {}),
        subject: subject ?? defaultSubject,
        template: 'blank',
        values: { contents: messageText(fields, sender) },
      });
    },
  });
}
