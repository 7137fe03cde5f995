import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Transporter } from 'nodemailer';
import { gatewayError } from '../../common/errors.ts';
import type { ComposedMail } from './message.ts';

// nodemailer is loaded on the first message (or SMTP transport), not at start: most gateways
// never send mail, and it is a dozen modules.
const loadComposer = async () => (await import('nodemailer/lib/mail-composer')).default;

/** Where messages go: an SMTP server, or files in an outbox for someone (or something) to pick up. */
export interface Delivery {
  send(mail: ComposedMail): Promise<{ messageId: string }>;
  close(): void;
}

/**
 * Each message becomes one RFC 822 file, `<time>-<uuid>.eml`, written under a dot name and renamed
 * into place, so that whatever watches the outbox never reads half a message. Blind copies stay in
 * the file (`keepBcc`): an outbox relay needs them to deliver.
 */
export function outboxDelivery(outboxDir: string): Delivery {
  return {
    async send(mail) {
      const MailComposer = await loadComposer();
      const composer = new MailComposer({ ...mail, messageId: `<${randomUUID()}@outbox>` });
      const node = composer.compile();
      node.keepBcc = true;
      const bytes = await node.build();
      await mkdir(outboxDir, { recursive: true });
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${randomUUID()}.eml`;
      const partial = path.join(outboxDir, `.${name}.partial`);
      try {
        await writeFile(partial, bytes, { flag: 'wx' });
        await rename(partial, path.join(outboxDir, name));
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return { messageId: node.messageId() };
    },
    close() {},
  };
}

/** Sends over SMTP (SMTP_URL); a refusal or an unreachable server is the caller's 502. */
export function smtpDelivery(smtpUrl: string): Delivery {
  let transport: Promise<Transporter> | undefined;
  // The URL is still checked at start: a bad SMTP_URL fails there (config.ts), not on the first message.
  const connect = () =>
    (transport ??= import('nodemailer').then(({ default: nodemailer }) =>
      nodemailer.createTransport(smtpUrl),
    ));
  return {
    async send(mail) {
      try {
        const info = await (await connect()).sendMail(mail);
        return { messageId: info.messageId };
      } catch (error) {
        throw gatewayError('ERR_BAD_GATEWAY', 'the mail server did not take the message', {
          smtp: (error as Error).message,
        });
      }
    },
    close() {
      void transport?.then((opened) => opened.close());
    },
  };
}
