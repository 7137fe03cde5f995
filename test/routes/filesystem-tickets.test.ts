// Tickets through the gateway: create (public 1/true, mode, uses-limit), list, delete, and the
// public download a ticket grants with no token, until its uses run out or it is deleted; the trash
// suspends it (a restore brings it back), deleting its file for good ends it.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { startDataStoreGateway, type DataStoreGateway } from '../support/data-store.ts';
import { engines, skipWithout } from '../support/postgres.ts';

for (const engine of engines) {
  describe(`filesystem tickets (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: DataStoreGateway;
    let home: string;
    let file: string;
    const content = 'ticketed content, 32 bytes long.';

    before(async () => {
      gw = (await startDataStoreGateway({
        engine,
        env: { TICKET_BASE_URL: 'https://files.example.org/tickets' },
      }))!;
      home = gw.home('alice');
      await gw.ok('alice', 'POST', '/secured/filesystem/directories', {
        json: { paths: [`${home}/tk`] },
      });
      await gw.upload('alice', `${home}/tk`, 'report.txt', content);
      file = `${home}/tk/report.txt`;
    });
    after(async () => gw?.close());

    /** The gateway path of a ticket URL (the configured public base is where the gateway is mounted). */
    const local = (url: string) => new URL(url).pathname;

    async function createTicket(query: string, paths = [file]) {
      const answer = await gw.ok('alice', 'POST', `/secured/filesystem/tickets${query}`, {
        json: { paths },
      });
      assert.equal(answer.user, 'alice');
      assert.equal(answer.tickets.length, paths.length);
      return answer.tickets[0];
    }

    describe('tickets', () => {
      test('a ticket definition names its path, an upper-case id and both public URLs', async () => {
        const ticket = await createTicket('?public=1&mode=read');
        assert.equal(ticket.path, file);
        assert.match(
          ticket['ticket-id'],
          /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/,
        );
        assert.equal(
          ticket['download-url'],
          `https://files.example.org/tickets/d/${ticket['ticket-id']}/report.txt`,
        );
        assert.equal(
          ticket['download-page-url'],
          `https://files.example.org/tickets/${ticket['ticket-id']}`,
        );
        for (const flag of ['true', 'TRUE', '0', 'false', ''])
          assert.ok(await createTicket(`?public=${flag}`));
        assert.ok(await createTicket(''), 'public is optional');
        const bad = await gw.call('alice', 'POST', '/secured/filesystem/tickets?public=maybe', {
          json: { paths: [file] },
        });
        assert.equal(bad.status, 400);
        assert.equal(bad.body.error_code, 'ERR_BAD_QUERY_PARAMETER');
        const badMode = await gw.call('alice', 'POST', '/secured/filesystem/tickets?mode=delete', {
          json: { paths: [file] },
        });
        assert.equal(badMode.status, 400);
        assert.equal(
          (await gw.call(null, 'POST', '/secured/filesystem/tickets', { json: { paths: [file] } }))
            .status,
          401,
        );
      });

      test('anyone with the ticket downloads the file without a token, ranges included', async () => {
        const ticket = await createTicket('?public=true');
        const download = await fetch(gw.url + local(ticket['download-url']));
        assert.equal(download.status, 200);
        assert.equal(await download.text(), content);
        assert.match(download.headers.get('content-disposition') ?? '', /report\.txt/);

        const partial = await fetch(gw.url + local(ticket['download-url']), {
          headers: { range: 'bytes=0-7' },
        });
        assert.equal(partial.status, 206);
        assert.equal(await partial.text(), 'ticketed');
        assert.equal(partial.headers.get('content-range'), `bytes 0-7/${content.length}`);

        const page = await gw.ok(null, 'GET', local(ticket['download-page-url']));
        assert.equal(page.path, file);
        assert.equal(page['ticket-id'], ticket['ticket-id']);
        assert.equal(page['file-size'], content.length);

        const unknown = await gw.call(
          null,
          'GET',
          '/tickets/d/00000000-0000-0000-0000-000000000000/report.txt',
        );
        assert.equal(unknown.body.error_code, 'ERR_TICKET_DOES_NOT_EXIST');
        assert.equal(unknown.status, 404);
        const junk = await gw.call(null, 'GET', '/tickets/..%2F..%2Fetc%2Fpasswd');
        assert.ok(junk.status >= 400 && junk.status < 500);
      });

      test('a ticket stops working after its uses-limit', async () => {
        const ticket = await createTicket('?public=1&uses-limit=2');
        const url = gw.url + local(ticket['download-url']);
        for (let use = 1; use <= 2; use++) {
          const response = await fetch(url);
          assert.equal(response.status, 200, `use ${use}`);
          assert.equal(await response.text(), content);
        }
        const spent = await fetch(url);
        assert.notEqual(spent.status, 200);
        assert.equal(((await spent.json()) as any).error_code, 'ERR_TICKET_DOES_NOT_EXIST');
        const badLimit = await gw.call(
          'alice',
          'POST',
          '/secured/filesystem/tickets?uses-limit=none',
          { json: { paths: [file] } },
        );
        assert.equal(badLimit.status, 400);
      });

      test('list-tickets and delete-tickets; a deleted ticket downloads nothing', async () => {
        await gw.upload('alice', `${home}/tk`, 'listed.txt', 'listed');
        const path = `${home}/tk/listed.txt`;
        const first = await createTicket('?public=1', [path]);
        const second = await createTicket('', [path]);
        const listed = await gw.ok('alice', 'POST', '/secured/filesystem/list-tickets', {
          json: { paths: [path] },
        });
        assert.deepEqual(
          listed.tickets[path].map((ticket: any) => ticket['ticket-id']).sort(),
          [first['ticket-id'], second['ticket-id']].sort(),
        );
        for (const ticket of listed.tickets[path])
          assert.deepEqual(Object.keys(ticket).sort(), [
            'download-page-url',
            'download-url',
            'path',
            'ticket-id',
          ]);

        const deleted = await gw.ok('alice', 'POST', '/secured/filesystem/delete-tickets', {
          json: { tickets: [first['ticket-id']] },
        });
        assert.equal(deleted.user, 'alice');
        assert.deepEqual(deleted.tickets, [first['ticket-id']]);
        const gone = await fetch(gw.url + local(first['download-url']));
        assert.equal(gone.status, 404);
        assert.equal(((await gone.json()) as any).error_code, 'ERR_TICKET_DOES_NOT_EXIST');
        assert.equal(
          (await fetch(gw.url + local(second['download-url']))).status,
          200,
          'the other ticket still works',
        );
        const after = await gw.ok('alice', 'POST', '/secured/filesystem/list-tickets', {
          json: { paths: [path] },
        });
        assert.deepEqual(
          after.tickets[path].map((ticket: any) => ticket['ticket-id']),
          [second['ticket-id']],
        );

        const again = await gw.call('alice', 'POST', '/secured/filesystem/delete-tickets', {
          json: { tickets: [first['ticket-id']] },
        });
        assert.equal(again.body.error_code, 'ERR_TICKET_DOES_NOT_EXIST');
        const theirs = await gw.call('bob', 'POST', '/secured/filesystem/delete-tickets', {
          json: { tickets: [second['ticket-id']] },
        });
        assert.equal(theirs.body.error_code, 'ERR_NOT_WRITEABLE');
        assert.equal((await fetch(gw.url + local(second['download-url']))).status, 200);
      });

      test("the trash suspends a file's tickets, a restore brings them back, deletion for good ends them", async () => {
        await gw.upload('alice', `${home}/tk`, 'doomed.txt', 'doomed');
        const path = `${home}/tk/doomed.txt`;
        const ticket = await createTicket('?public=1', [path]);
        const download = () => fetch(gw.url + local(ticket['download-url']));
        assert.equal((await download()).status, 200);
        const trashed = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [path] },
        });
        const inTrash = trashed['trash-paths'][path];
        const suspended = await download();
        assert.equal(suspended.status, 404);
        assert.equal(((await suspended.json()) as any).error_code, 'ERR_TICKET_DOES_NOT_EXIST');
        const kept = await gw.ok('alice', 'POST', '/secured/filesystem/list-tickets', {
          json: { paths: [inTrash] },
        });
        assert.deepEqual(
          kept.tickets[inTrash].map((each: any) => each['ticket-id']),
          [ticket['ticket-id']],
        );

        await gw.ok('alice', 'POST', '/secured/filesystem/restore', { json: { paths: [inTrash] } });
        const back = await download();
        assert.equal(back.status, 200);
        assert.equal(await back.text(), 'doomed');

        const again = await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [path] },
        });
        await gw.ok('alice', 'POST', '/secured/filesystem/delete', {
          json: { paths: [again['trash-paths'][path]] },
        });
        assert.equal((await download()).status, 404);
        const rows = await gw.running.gateway.store.db
          .selectFrom('data_tickets')
          .select('id')
          .where('id', '=', ticket['ticket-id'])
          .execute();
        assert.deepEqual(rows, [], 'deleted for good, the ticket is gone');
      });
    });
  });
}
