// The embedded data-info service's tickets and path lists (backends.md §2.1, §2.6) over real HTTP,
// on each engine: create, list, download with ranges and a uses limit, delete; what a ticket grants;
// path-list files written for the caller.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  blobText,
  engines,
  home,
  ticketBaseUrl,
  type DataInfoHost,
} from '../../support/data-info-host.ts';

const upperUuid = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/;

/** Tickets, what they grant, and path lists (backends.md §2.1, §2.6), on each engine. */
for (const engine of engines) {
  describe(`data-info tickets and path lists on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;

    test('tickets: create, list, download with ranges and a uses limit, delete', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const a = home('alice');
      const file = await s().file('alice', `${a}/résumé 100%.txt`, '0123456789');
      const created = await s().call('POST', '/tickets?public=1&uses-limit=3', {
        user: 'alice',
        body: { paths: [file.path] },
      });
      assert.equal(created.status, 200, created.body);
      assert.equal(created.json().user, 'alice');
      const [ticket] = created.json().tickets;
      assert.equal(ticket.path, file.path);
      assert.match(ticket['ticket-id'], upperUuid);
      const id = ticket['ticket-id'];
      assert.equal(
        ticket['download-url'],
        `${ticketBaseUrl}/d/${id}/r%C3%A9sum%C3%A9%20100%25.txt`,
      );
      assert.equal(ticket['download-page-url'], `${ticketBaseUrl}/${id}`);

      const info = await s().call('GET', `/ticket-downloads/${id}/info`);
      assert.equal(info.status, 200, info.body);
      assert.deepEqual(info.json(), {
        'ticket-id': id,
        path: file.path,
        label: 'résumé 100%.txt',
        type: 'file',
        'file-size': 10,
        'download-url': ticket['download-url'],
      });

      const whole = await s().call('GET', `/ticket-downloads/${id}`);
      assert.equal(whole.status, 200);
      assert.equal(whole.body, '0123456789');
      assert.equal(whole.headers['content-length'], '10');
      assert.equal(
        whole.headers['content-disposition'],
        `attachment; filename="r_sum_ 100_.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20100%25.txt`,
      );
      const part = await s().call('GET', `/ticket-downloads/${id.toLowerCase()}`, {
        headers: { range: 'bytes=2-4' },
      });
      assert.equal(part.status, 206);
      assert.equal(part.body, '234');
      assert.equal(part.headers['content-range'], 'bytes 2-4/10');
      assert.equal(part.headers['content-length'], '3');
      for (let probe = 0; probe < 3; probe += 1) {
        const head = await s().call('HEAD', `/ticket-downloads/${id}`);
        assert.equal(head.status, 200);
        assert.equal(head.headers['content-length'], '10');
        assert.equal(head.body, '');
      }
      const unsatisfiable = await s().call('GET', `/ticket-downloads/${id}`, {
        headers: { range: 'bytes=50-' },
      });
      assert.equal(unsatisfiable.status, 416);
      assert.equal(unsatisfiable.headers['content-range'], 'bytes */10');
      assert.equal(
        (await s().call('GET', `/ticket-downloads/${id}`)).status,
        200,
        'third use (neither a HEAD nor a 416 is a use)',
      );
      const exhausted = await s().call('GET', `/ticket-downloads/${id}`);
      assert.equal(exhausted.status, 404);
      assert.deepEqual(Object.keys(exhausted.json()).sort(), ['error_code', 'reason']);
      assert.equal(exhausted.json().error_code, 'ERR_TICKET_DOES_NOT_EXIST');
      assert.match(exhausted.json().reason, /uses limit/);

      const second = (
        await s().call('POST', '/tickets?public=false&mode=write', {
          user: 'alice',
          body: { paths: [file.path] },
        })
      ).json().tickets[0];
      const listed = await s().call('POST', '/ticket-lister', {
        user: 'alice',
        body: { paths: [file.path] },
      });
      assert.equal(listed.status, 200, listed.body);
      assert.deepEqual(
        new Set(
          listed
            .json()
            .tickets[file.path].map((entry: { 'ticket-id': string }) => entry['ticket-id']),
        ),
        new Set([id, second['ticket-id']]),
      );

      const unknown = await s().call('POST', '/ticket-deleter', {
        user: 'alice',
        body: { tickets: [id, 'AAAAAAAA-0000-4000-8000-000000000000'] },
      });
      assert.equal(unknown.status, 404);
      assert.deepEqual(unknown.json(), {
        error_code: 'ERR_TICKET_DOES_NOT_EXIST',
        reason: unknown.json().reason,
      });
      assert.equal(
        (await s().call('GET', `/ticket-downloads/${second['ticket-id']}`)).status,
        200,
        'nothing was deleted',
      );
      const deleted = await s().call('POST', '/ticket-deleter', {
        user: 'alice',
        body: { tickets: [id, second['ticket-id']] },
      });
      assert.equal(deleted.status, 200, deleted.body);
      assert.deepEqual(deleted.json(), { user: 'alice', tickets: [id, second['ticket-id']] });
      const gone = await s().call('GET', `/ticket-downloads/${second['ticket-id']}`);
      assert.equal(gone.status, 404);
      assert.equal(gone.json().error_code, 'ERR_TICKET_DOES_NOT_EXIST');
      assert.equal(
        (await s().call('GET', '/ticket-downloads/not-a-ticket/info')).json().error_code,
        'ERR_TICKET_DOES_NOT_EXIST',
      );
    });

    test('ticket access: write needed, read with for-job; folder tickets; tickets die with their object', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const b = home('bea');
      const folder = await s().folder('bea', `${b}/shared`);
      const file = await s().file('bea', `${b}/shared/x.bin`, 'x');
      const empty = await s().file('bea', `${b}/empty.txt`, '');
      await s().data.catalog.grant(s().data.db, folder.id, 'cal', 'read');

      const readOnly = await s().call('POST', '/tickets?public=true', {
        user: 'cal',
        body: { paths: [file.path] },
      });
      assert.equal(readOnly.status, 403);
      assert.deepEqual(
        Object.keys(readOnly.json()).sort(),
        ['error_code', 'reason'],
        'ticket errors are {error_code, reason}',
      );
      assert.equal(readOnly.json().error_code, 'ERR_NOT_WRITEABLE');
      const job = await s().call('POST', '/tickets?public=false&for-job=true', {
        user: 'cal',
        body: { paths: [file.path] },
      });
      assert.equal(job.status, 200, job.body);
      const missingPublic = await s().call('POST', '/tickets', {
        user: 'bea',
        body: { paths: [file.path] },
      });
      assert.equal(missingPublic.status, 400);
      assert.equal(missingPublic.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
      const badPublic = await s().call('POST', '/tickets?public=maybe', {
        user: 'bea',
        body: { paths: [file.path] },
      });
      assert.equal(badPublic.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
      const missingPath = await s().call('POST', '/tickets?public=0', {
        user: 'bea',
        body: { paths: [`${b}/nope`] },
      });
      assert.deepEqual(missingPath.json(), {
        error_code: 'ERR_DOES_NOT_EXIST',
        reason: `${b}/nope does not exist`,
      });

      const folderTicket = (
        await s().call('POST', '/tickets?public=0', { user: 'bea', body: { paths: [folder.path] } })
      ).json().tickets[0];
      const folderInfo = await s().call(
        'GET',
        `/ticket-downloads/${folderTicket['ticket-id']}/info`,
      );
      assert.equal(folderInfo.json().path, folder.path);
      assert.equal(folderInfo.json().type, 'dir');
      assert.equal(
        (await s().call('GET', `/ticket-downloads/${folderTicket['ticket-id']}`)).json().error_code,
        'ERR_NOT_A_FILE',
      );

      const emptyTicket = (
        await s().call('POST', '/tickets?public=0', { user: 'bea', body: { paths: [empty.path] } })
      ).json().tickets[0];
      const emptyDownload = await s().call('GET', `/ticket-downloads/${emptyTicket['ticket-id']}`);
      assert.equal(emptyDownload.status, 200);
      assert.equal(emptyDownload.body, '');
      assert.equal(emptyDownload.headers['content-length'], '0');

      const fileTicket = (
        await s().call('POST', '/tickets?public=0', { user: 'bea', body: { paths: [file.path] } })
      ).json().tickets[0];
      const del = await s().call('POST', '/deleter', {
        user: 'bea',
        body: { paths: [folder.path] },
      });
      assert.equal(del.status, 200, del.body);
      assert.equal(
        (await s().call('GET', `/ticket-downloads/${fileTicket['ticket-id']}`)).json().error_code,
        'ERR_TICKET_DOES_NOT_EXIST',
      );
      assert.equal(
        (await s().call('GET', `/ticket-downloads/${folderTicket['ticket-id']}/info`)).status,
        404,
      );
    });

    test('path-list-creator writes the header and one path per line, owned by the caller', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const d = home('dan');
      await s().folder('dan', `${d}/in`);
      await s().file('dan', `${d}/in/a.fastq`);
      await s().file('dan', `${d}/in/b.fastq`);
      await s().file('dan', `${d}/in/notes.txt`);
      await s().folder('dan', `${d}/in/sub`);
      await s().file('dan', `${d}/in/sub/c.fastq`);
      const typed = await s().file('dan', `${d}/in/sub/typed.dat`);
      await s()
        .data.db.updateTable('data_objects')
        .set({ info_type: 'fastq' })
        .where('id', '=', typed.id)
        .execute();
      await s().folder('dan', `${d}/out`);

      const flat = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${d}/out/list.txt`)}&name-pattern=*.fastq`,
        { user: 'dan', body: { paths: [`${d}/in`] } },
      );
      assert.equal(flat.status, 200, flat.body);
      const stat = flat.json().file;
      assert.equal(stat.path, `${d}/out/list.txt`);
      assert.equal(stat.type, 'file');
      assert.equal(stat.permission, 'own');
      assert.equal(stat.infoType, 'ht-analysis-path-list');
      assert.equal(
        await blobText(s().data, stat.id),
        `# application/vnd.de.path-list+csv; version=1\n${d}/in/a.fastq\n${d}/in/b.fastq\n`,
      );
      assert.equal(stat['file-size'], Buffer.byteLength(await blobText(s().data, stat.id)));

      const deep = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${d}/out/deep.txt`)}&recursive=true&info-type=fastq&path-list-info-type=custom`,
        {
          user: 'dan',
          body: { paths: [`${d}/in`] },
        },
      );
      assert.equal(deep.json().file.infoType, 'custom');
      assert.equal(
        await blobText(s().data, deep.json().file.id),
        `# application/vnd.de.path-list+csv; version=1\n${d}/in/sub/typed.dat\n`,
      );
      const folders = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${d}/out/folders.txt`)}&folders-only=1&recursive=1`,
        { user: 'dan', body: { paths: [d] } },
      );
      assert.equal(
        await blobText(s().data, folders.json().file.id),
        `# application/vnd.de.path-list+csv; version=1\n${d}/in\n${d}/in/sub\n${d}/out\n`,
      );

      const exists = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${d}/out/list.txt`)}`,
        { user: 'dan', body: { paths: [`${d}/in`] } },
      );
      assert.equal(exists.json().error_code, 'ERR_EXISTS');
      const unreadable = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${home('eve')}/x.txt`)}`,
        { user: 'eve', body: { paths: [`${d}/in`] } },
      );
      assert.equal(unreadable.json().error_code, 'ERR_NOT_READABLE');
      const notWritable = await s().call(
        'POST',
        `/path-list-creator?dest=${encodeURIComponent(`${d}/out/eve.txt`)}`,
        { user: 'eve', body: { paths: [home('eve')] } },
      );
      assert.equal(notWritable.json().error_code, 'ERR_NOT_WRITEABLE');
      const noDest = await s().call('POST', '/path-list-creator', {
        user: 'dan',
        body: { paths: [d] },
      });
      assert.equal(noDest.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
    });
  });
}
