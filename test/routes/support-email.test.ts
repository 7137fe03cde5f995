// Support mail through the gateway (routes.md §23 and §25, issue 18 item 6): `POST /support-email`
// (anonymous callers too) and `POST /service/email` (service accounts holding the `emailer` role)
// are served by the embedded email service. Without SMTP_URL each message lands in
// <GATEWAY_DATA_DIR>/outbox as a whole RFC 822 file; with SMTP_URL set it reaches a real SMTP
// server (smtp-server, started here on 127.0.0.1). Bodies are validated and errors carry error_code.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { SMTPServer } from 'smtp-server';
import { startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { parseEml, type ParsedMail } from '../support/eml.ts';

const mailer = 'service-account-mailer';
const claims = (user: string) =>
  user === mailer || user === 'alice-with-role' || user === 'service-account-other'
    ? { realm_access: { roles: user === 'service-account-other' ? ['ldap-reader'] : ['emailer'] } }
    : {};
const supportEnv = { SUPPORT_EMAIL_TO: 'help@example.org', SUPPORT_EMAIL_FROM: 'de@example.org' };

const supportForm = {
  email: 'visitor@example.net',
  subject: 'Cannot upload',
  fields: {
    name: 'Vera Visitor',
    message: 'The upload button does nothing.',
    browser: { ua: 'x' },
  },
};
const serviceMessage = {
  to: ['one@example.org', 'two@example.org'],
  cc: 'three@example.org',
  bcc: 'hidden@example.org',
  from_addr: 'robot@example.org',
  from_name: 'Platform Robot',
  subject: 'Your request',
  template: 'blank',
  values: { contents: 'Approved.' },
};

describe('support mail into the outbox (no SMTP_URL)', () => {
  let g: DataStoreGateway | undefined;
  let outbox: string;
  const messages = (): ParsedMail[] =>
    existsSync(outbox)
      ? readdirSync(outbox)
          .sort()
          .map((name) => {
            assert.match(name, /^[^.].*\.eml$/, 'only whole messages in the outbox');
            return parseEml(readFileSync(path.join(outbox, name)));
          })
      : [];

  before(async () => {
    g = await startDataStoreGateway({ env: supportEnv, claims });
    outbox = path.join(g!.running.dataDir, 'outbox');
  });
  after(async () => g?.close());

  test('an anonymous support request is a message to the support address', async () => {
    const answer = await g!.call(null, 'POST', '/support-email', { json: supportForm });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { status: 'OK' });
    const [mail, ...others] = messages();
    assert.equal(others.length, 0);
    assert.equal(mail!.headers.get('to'), 'help@example.org');
    assert.equal(mail!.headers.get('from'), 'de@example.org');
    assert.equal(mail!.headers.get('reply-to'), 'visitor@example.net');
    assert.equal(mail!.headers.get('subject'), 'Cannot upload');
    assert.match(mail!.headers.get('message-id') ?? '', /^<.+>$/);
    assert.ok(mail!.headers.has('date'));
    assert.match(mail!.headers.get('content-type') ?? '', /^text\/plain/);
    assert.equal(
      mail!.text.trimEnd(),
      [
        'name: Vera Visitor',
        'message: The upload button does nothing.',
        'browser: {"ua":"x"}',
        '',
        'Sent by: anonymous <visitor@example.net>',
      ].join('\n'),
    );
  });

  test('a signed-in request names its sender; the subject has a default', async () => {
    const before = messages().length;
    const answer = await g!.call('alice', 'POST', '/support-email', {
      json: { fields: { message: 'Hello' } },
    });
    assert.equal(answer.status, 200, answer.text);
    const all = messages();
    assert.equal(all.length, before + 1);
    const mail = all.find((each) => each.text.includes('Sent by: alice'))!;
    assert.ok(mail, 'the signed-in message is in the outbox');
    assert.equal(mail.headers.get('subject'), 'DE Support Request');
    assert.equal(mail.headers.get('reply-to'), undefined);
  });

  test('support requests are validated', async () => {
    const before = messages().length;
    for (const json of [
      {},
      { fields: 'text' },
      { fields: {}, email: 'not an address' },
      { fields: {}, subject: '' },
    ]) {
      const answer = await g!.call(null, 'POST', '/support-email', { json });
      assert.equal(answer.status, 400, `${JSON.stringify(json)}: ${answer.text}`);
      assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
    }
    assert.equal(messages().length, before);
  });

  test('/service/email: a service account with the emailer role sends a templated message', async () => {
    const answer = await g!.call(mailer, 'POST', '/service/email', { json: serviceMessage });
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.body, { status: 'OK' });
    const mail = messages().find((each) => each.headers.get('subject') === 'Your request')!;
    assert.ok(mail, 'the message is in the outbox');
    assert.equal(mail.headers.get('to'), 'one@example.org, two@example.org');
    assert.equal(mail.headers.get('cc'), 'three@example.org');
    assert.equal(mail.headers.get('bcc'), 'hidden@example.org');
    assert.equal(mail.headers.get('from'), 'Platform Robot <robot@example.org>');
    assert.equal(mail.text.trimEnd(), 'Approved.');

    const other = await g!.call(mailer, 'POST', '/service/email', {
      json: {
        to: 'one@example.org',
        subject: 'Tool request',
        template: 'tool_request',
        values: { tool: 'bwa', version: 2 },
      },
    });
    assert.equal(other.status, 200, other.text);
    const listed = messages().find((each) => each.headers.get('subject') === 'Tool request')!;
    assert.equal(listed.headers.get('from'), 'de@example.org');
    assert.equal(listed.text.trimEnd(), 'tool: bwa\nversion: 2');
  });

  test('/service/email: refused without the emailer role, and validated', async () => {
    const before = messages().length;
    for (const user of [null, 'alice', 'alice-with-role', 'service-account-other']) {
      const answer = await g!.call(user, 'POST', '/service/email', { json: serviceMessage });
      assert.equal(answer.status, user === null ? 401 : 403, `${user}: ${answer.text}`);
      assert.equal(answer.body.error_code, user === null ? 'ERR_NOT_AUTHORIZED' : 'ERR_FORBIDDEN');
    }
    for (const json of [
      { ...serviceMessage, to: 'nobody' },
      { ...serviceMessage, subject: undefined },
      { ...serviceMessage, values: {} },
    ]) {
      const answer = await g!.call(mailer, 'POST', '/service/email', { json });
      assert.equal(answer.status, 400, `${JSON.stringify(json)}: ${answer.text}`);
      assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
    }
    assert.equal(messages().length, before);
  });
});

interface Received {
  from: string;
  to: string[];
  raw: Buffer;
}

describe('support mail over SMTP (SMTP_URL set)', () => {
  let g: DataStoreGateway | undefined;
  let smtp: SMTPServer;
  const received: Received[] = [];
  let arrived: (() => void) | undefined;
  const nextMessage = () => new Promise<void>((resolve) => (arrived = resolve));

  before(async () => {
    smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS', 'AUTH'],
      logger: false,
      onRcptTo(address, _session, callback) {
        if (address.address.startsWith('refused@'))
          return callback(new Error('550 no such mailbox'));
        callback();
      },
      onData(stream, session, callback) {
        const chunks: Buffer[] = [];
        stream.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream.on('end', () => {
          received.push({
            from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
            to: session.envelope.rcptTo.map((rcpt) => rcpt.address),
            raw: Buffer.concat(chunks),
          });
          callback();
          arrived?.();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve));
    const { port } = smtp.server.address() as { port: number };
    g = await startDataStoreGateway({
      env: { ...supportEnv, SMTP_URL: `smtp://127.0.0.1:${port}` },
      claims,
    });
  });
  after(async () => {
    await g?.close();
    await new Promise<void>((resolve) => smtp.close(() => resolve()));
  });

  test('a support request reaches the SMTP server, and nothing goes to the outbox', async () => {
    const delivered = nextMessage();
    const answer = await g!.call(null, 'POST', '/support-email', { json: supportForm });
    assert.equal(answer.status, 200, answer.text);
    await delivered;
    const [message] = received;
    assert.equal(message!.from, 'de@example.org');
    assert.deepEqual(message!.to, ['help@example.org']);
    const mail = parseEml(message!.raw);
    assert.equal(mail.headers.get('subject'), 'Cannot upload');
    assert.equal(mail.headers.get('reply-to'), 'visitor@example.net');
    assert.match(mail.text, /^message: The upload button does nothing\.$/m);
    assert.equal(existsSync(path.join(g!.running.dataDir, 'outbox')), false);
  });

  test('/service/email over SMTP: blind copies are envelope recipients, not headers', async () => {
    const delivered = nextMessage();
    const answer = await g!.call(mailer, 'POST', '/service/email', { json: serviceMessage });
    assert.equal(answer.status, 200, answer.text);
    await delivered;
    const message = received.at(-1)!;
    assert.deepEqual(message.to.sort(), [
      'hidden@example.org',
      'one@example.org',
      'three@example.org',
      'two@example.org',
    ]);
    const mail = parseEml(message.raw);
    assert.equal(mail.headers.get('bcc'), undefined);
    assert.equal(mail.text.trimEnd(), 'Approved.');
  });

  test('a message the SMTP server refuses is a 502 with error_code', async () => {
    const answer = await g!.call(mailer, 'POST', '/service/email', {
      json: { ...serviceMessage, to: 'refused@example.org', cc: undefined, bcc: undefined },
    });
    assert.equal(answer.status, 502, answer.text);
    assert.equal(answer.body.error_code, 'ERR_BAD_GATEWAY');
  });
});
