// A ticket lends its creator's access and no more, on SQLite and PostgreSQL: once the creator can
// no longer read the file (the share it was made on is revoked, on the file or on its folder, or
// the file is moved out of the folder shared with them), its download and its page answer
// ERR_TICKET_DOES_NOT_EXIST, through the gateway's public ticket routes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  startDataStoreGateway,
  type Answer,
  type DataStoreGateway,
} from '../support/data-store.ts';
import { requiredInCi } from '../support/gateway.ts';

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`tickets die with their creator's access (${engine})`, () => {
    let gw: DataStoreGateway;
    let home: string;
    before(async () => {
      gw = (await startDataStoreGateway({ engine }))!;
      if (!gw) return;
      home = gw.home('alice');
      await gw.ok('bob', 'GET', '/secured/filesystem/root');
    });
    after(async () => gw?.close());
    const skip = () => !gw && engine === 'postgres' && !requiredInCi('DATABASE_URL');

    const share = (path: string, permission: string) =>
      gw.ok('alice', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'bob', paths: [{ path, permission }] }] },
      });
    const unshare = (path: string) =>
      gw.ok('alice', 'POST', '/secured/unshare', {
        json: { unshare: [{ user: 'bob', paths: [path] }] },
      });

    /** bob's ticket on `path`, and its two public routes (relative to the gateway). */
    async function bobsTicket(path: string) {
      const answer = await gw.ok('bob', 'POST', '/secured/filesystem/tickets', {
        json: { paths: [path] },
      });
      const id: string = answer.tickets[0]['ticket-id'];
      const name = encodeURIComponent(path.split('/').pop()!);
      return {
        download: () => gw.call(null, 'GET', `/tickets/d/${id}/${name}`),
        page: () => gw.call(null, 'GET', `/tickets/${id}`),
      };
    }

    const assertDead = (answer: Answer, what: string) => {
      assert.equal(answer.status, 404, `${what}: ${answer.text}`);
      assert.equal(answer.body.error_code, 'ERR_TICKET_DOES_NOT_EXIST', what);
    };

    test('revoking the share of the file kills the ticket bob made on it', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      await gw.folder('alice', `${home}/file-share`);
      await gw.upload('alice', `${home}/file-share`, 'report.txt', 'the report');
      const file = `${home}/file-share/report.txt`;
      await share(file, 'write');
      const ticket = await bobsTicket(file);
      assert.equal(
        (await ticket.download()).text,
        'the report',
        'the ticket works while bob may read',
      );
      assert.equal((await ticket.page()).status, 200);

      await unshare(file);
      assertDead(await ticket.download(), 'download after the share was revoked');
      assertDead(await ticket.page(), 'page after the share was revoked');
    });

    test('revoking the share of the folder kills a ticket made on a file inside it', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const folder = `${home}/folder-share`;
      await gw.folder('alice', folder);
      await gw.upload('alice', folder, 'inside.txt', 'inside');
      await share(folder, 'write');
      const ticket = await bobsTicket(`${folder}/inside.txt`);
      assert.equal((await ticket.download()).text, 'inside');

      await unshare(folder);
      assertDead(await ticket.download(), 'download after the folder share was revoked');
    });

    test('moving the file out of the folder shared with bob kills his ticket; alice’s own ticket lives on', async (t) => {
      if (skip()) return t.skip('DATABASE_URL is not set');
      const folder = `${home}/moved-out`;
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${folder}/shared`, `${folder}/private`] },
      });
      await gw.upload('alice', `${folder}/shared`, 'leaving.txt', 'leaving');
      await share(`${folder}/shared`, 'write');
      const ticket = await bobsTicket(`${folder}/shared/leaving.txt`);
      const alices = (
        await gw.ok('alice', 'POST', '/secured/filesystem/tickets', {
          json: { paths: [`${folder}/shared/leaving.txt`] },
        })
      ).tickets[0];
      assert.equal((await ticket.download()).text, 'leaving');

      await gw.ok('alice', 'POST', '/secured/filesystem/move', {
        json: { sources: [`${folder}/shared/leaving.txt`], dest: `${folder}/private` },
      });
      assertDead(await ticket.download(), 'download after the file left the shared folder');
      assertDead(await ticket.page(), 'page after the file left the shared folder');
      const own = await gw.call(null, 'GET', `/tickets/d/${alices['ticket-id']}/leaving.txt`);
      assert.equal(own.status, 200, own.text);
      assert.equal(own.text, 'leaving');
    });
  });
}
