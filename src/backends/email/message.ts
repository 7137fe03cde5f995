import { Type, type Static } from 'typebox';
import { gatewayError } from '../../common/errors.ts';

/**
 * A message as the platform's email service takes it (routes.md §25, `POST /`): recipients, the
 * sender, a subject, and a template filled with values. This service knows no template files: the
 * `blank` template's body is `values.contents`; any other template's body lists its values, one
 * `name: value` line each, so that a message sent with a template of the reference service still
 * says everything it was given.
 */
const Address = Type.String({ minLength: 3, maxLength: 320, pattern: '^[^\\s@<>,]+@[^\\s@<>,]+$' });
const Addresses = Type.Union([Address, Type.Array(Address, { minItems: 1, maxItems: 100 })]);

export const EmailBody = Type.Object({
  to: Addresses,
  cc: Type.Optional(Addresses),
  bcc: Type.Optional(Addresses),
  from_addr: Type.Optional(Address),
  from_name: Type.Optional(Type.String({ maxLength: 200 })),
  reply_to: Type.Optional(Address),
  subject: Type.String({ minLength: 1, maxLength: 998 }),
  template: Type.String({ minLength: 1, maxLength: 100 }),
  values: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  attachments: Type.Optional(
    Type.Array(
      Type.Object({
        filename: Type.String({ minLength: 1, maxLength: 255 }),
        'content-type': Type.Optional(Type.String({ maxLength: 255 })),
        data: Type.String({ description: 'The content, base64' }),
      }),
      { maxItems: 20 },
    ),
  ),
});
export type EmailRequest = Static<typeof EmailBody>;

/** What nodemailer is given: the message, before it is composed. */
export interface ComposedMail {
  from: { name: string; address: string } | string;
  to: string[];
  cc?: string[];
  bcc?: string[];
  replyTo?: string;
  subject: string;
  text: string;
  attachments?: { filename: string; contentType?: string; content: Buffer }[];
}

const list = (value: string | string[] | undefined) =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

const shown = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value));

/** The text of a message: the template filled with its values. */
export function bodyText(template: string, values: Record<string, unknown>): string {
  if (template === 'blank') {
    if (typeof values.contents !== 'string')
      throw gatewayError('ERR_BAD_OR_MISSING_FIELD', 'the blank template needs values.contents', {
        field: 'values.contents',
      });
    return values.contents;
  }
  return Object.entries(values)
    .map(([name, value]) => `${name}: ${shown(value)}`)
    .join('\n');
}

/** The message to send, from a request and the sender used when it names none. */
export function composeMail(request: EmailRequest, defaultFrom: string): ComposedMail {
  const address = request.from_addr ?? defaultFrom;
  return {
    from: request.from_name ? { name: request.from_name, address } : address,
    to: list(request.to)!,
    cc: list(request.cc),
    bcc: list(request.bcc),
    replyTo: request.reply_to,
    subject: request.subject,
    text: bodyText(request.template, request.values ?? {}),
    attachments: request.attachments?.map((attachment) => ({
      filename: attachment.filename,
      contentType: attachment['content-type'],
      content: Buffer.from(attachment.data, 'base64'),
    })),
  };
}
