import { Type } from 'typebox';
import type { EmbeddedService } from '../service.ts';
import { outboxDelivery, smtpDelivery } from './delivery.ts';
import { composeMail, EmailBody, type EmailRequest } from './message.ts';

// The email service's door: the service itself, for the embedded host; nothing else of it is for
// other parts of the project.

/**
 * The email service (routes.md §25, the reference platform's emailer): `POST /` sends one
 * message, over SMTP when SMTP_URL is set, otherwise as an `.eml` file in the outbox.
 */
export const emailService: EmbeddedService = {
  name: 'email',
  plugin: async (app, { config }) => {
    const { smtpUrl, outboxDir, defaultFrom } = config.email;
    const delivery = smtpUrl ? smtpDelivery(smtpUrl) : outboxDelivery(outboxDir);
    app.addHook('onClose', async () => delivery.close());
    const schema = {
      body: EmailBody,
      response: { 200: Type.Object({ status: Type.Literal('OK') }) },
    };
    app.post('/', { schema }, async (request) => {
      await delivery.send(composeMail(request.body as EmailRequest, defaultFrom));
      return { status: 'OK' };
    });
  },
};
