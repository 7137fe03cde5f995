// Calls to the email service (routes.md §25): one message per call, in the service's own shape.
import { jsonAnswer } from '../http/backend-answer.ts';
import type { Forwarder } from '../http/proxy.ts';

/** A message as the email service takes it (`POST /`). */
export interface EmailMessage {
  to: string | string[];
  from_addr?: string;
  from_name?: string;
  reply_to?: string;
  subject: string;
  template: string;
  values: Record<string, unknown>;
}

/** Sends one message; a refusal keeps the service's status and body. */
export async function sendEmail(
  deps: { forwarder: Forwarder },
  requestId: string,
  message: EmailMessage,
): Promise<{ status: string }> {
  const response = await deps.forwarder.call(
    'email',
    { method: 'POST', path: '/', json: message, identityStyle: 'none' },
    requestId,
  );
  return jsonAnswer<{ status: string }>('email', response);
}
