// The embedded metadata service's permanent-ID requests (backends.md §3.7) over real HTTP, on each
// engine: from submission to identifier with the status history, concurrent status changes,
// listings (filters, sorts, paging) and bad requests.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RequestListing as Listing } from '../../../src/common/permanent-id-requests.ts';
import { metadataEngines, type MetadataHost } from '../../support/metadata-host.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const pause = () => new Promise((resolve) => setTimeout(resolve, 3));

/** Permanent-ID requests (backends.md §3.7): create, follow, list, change status; on each engine. */
for (const engine of metadataEngines) {
  describe(`metadata permanent-ID requests on ${engine.name}`, () => {
    let service: MetadataHost | undefined;
    before(async () => {
      service = await engine.open();
    });
    after(async () => service?.close());
    const s = () => service!;
    const ok = async (method: string, url: string, user: string, body?: unknown) => {
      const answer = await s().call(method, url, { user, body });
      assert.equal(answer.status, 200, `${method} ${url}: ${answer.text}`);
      return answer.json();
    };
    const failure = async (
      method: string,
      url: string,
      user: string | undefined,
      body: unknown,
      status: number,
      code: string,
    ) => {
      const answer = await s().call(method, url, { user, body });
      assert.equal(
        answer.status,
        status,
        `${method} ${url} ${JSON.stringify(body)}: ${answer.text}`,
      );
      assert.equal(answer.json().error_code, code);
      return answer.json();
    };

    test('request types and status codes are seeded', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const types = (await ok('GET', '/permanent-id-requests/types', 'alice')).request_types;
      assert.deepEqual(
        types.map((type: { type: string; description: string }) => [type.type, type.description]),
        [
          ['ARK', 'Archival Resource Key'],
          ['DOI', 'Data Object Identifier'],
        ],
      );
      for (const type of types) assert.match(type.id, uuid);
      const codes = (await ok('GET', '/permanent-id-requests/status-codes', 'alice')).status_codes;
      assert.deepEqual(
        new Set(codes.map((code: { name: string }) => code.name)),
        new Set(['Submitted', 'Pending', 'Evaluation', 'Approved', 'Completion', 'Failed']),
      );
      for (const code of codes)
        assert.deepEqual(Object.keys(code).sort(), ['description', 'id', 'name']);
    });

    test('a request from submission to identifier, with its status history', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const folder = randomUUID();
      const created = await ok('POST', '/permanent-id-requests', 'alice', {
        type: 'DOI',
        target_id: folder.toUpperCase(),
        target_type: 'folder',
        original_path: '/lab/home/alice/reads',
      });
      assert.match(created.id, uuid);
      assert.equal(created.type, 'DOI');
      assert.equal(created.target_id, folder);
      assert.equal(created.target_type, 'folder');
      assert.equal(created.requested_by, 'alice');
      assert.equal(created.original_path, '/lab/home/alice/reads');
      assert.equal(created.permanent_id, undefined);
      assert.equal(created.history.length, 1);
      assert.deepEqual(
        { ...created.history[0], status_date: 0 },
        { status: 'Submitted', status_date: 0, updated_by: 'alice' },
      );
      assert.equal(typeof created.history[0].status_date, 'number');

      const duplicate = await failure(
        'POST',
        '/permanent-id-requests',
        'alice',
        { type: 'doi', target_id: folder, target_type: 'folder' },
        400,
        'ERR_NOT_UNIQUE',
      );
      assert.equal(
        duplicate.reason,
        'A Permanent ID Request of this type for this item was already submitted.',
      );
      assert.deepEqual(duplicate.request, created);
      const ark = await ok('POST', '/permanent-id-requests', 'alice', {
        type: 'ARK',
        target_id: folder,
        target_type: 'folder',
      });
      assert.notEqual(ark.id, created.id, 'another type for the same folder is another request');
      assert.equal(ark.original_path, undefined);

      assert.deepEqual(await ok('GET', `/permanent-id-requests/${created.id}`, 'alice'), created);
      const notBobs = await failure(
        'GET',
        `/permanent-id-requests/${created.id}`,
        'bob',
        undefined,
        404,
        'ERR_NOT_FOUND',
      );
      assert.equal(
        notBobs.reason,
        'A Permanent ID Request with this ID was not found for this user.',
      );
      assert.deepEqual(
        await ok('GET', `/admin/permanent-id-requests/${created.id}`, 'curator'),
        created,
      );

      const status = (body: unknown) =>
        ok('POST', `/admin/permanent-id-requests/${created.id}/status`, 'curator', body);
      await pause();
      const evaluated = await status({ status: 'Evaluation', comments: 'Checking the metadata.' });
      assert.deepEqual(
        evaluated.history
          .slice(1)
          .map((entry: { status: string; comments?: string; updated_by: string }) => [
            entry.status,
            entry.comments,
            entry.updated_by,
          ]),
        [['Evaluation', 'Checking the metadata.', 'curator']],
      );
      assert.ok(evaluated.history[1].status_date >= evaluated.history[0].status_date);
      const repeated = await status({ comments: 'Still checking.' });
      assert.equal(repeated.history[2].status, 'Evaluation', 'no status repeats the latest');
      const blank = await status({ status: 'Approved', comments: '   ' });
      assert.equal(blank.history[3].status, 'Approved');
      assert.equal('comments' in blank.history[3], false, 'blank comments are none');
      const onHold = await status({ status: 'On Hold' });
      assert.equal(onHold.history[4].status, 'On Hold');
      const codes = (await ok('GET', '/permanent-id-requests/status-codes', 'alice')).status_codes;
      assert.deepEqual(
        codes
          .filter((code: { name: string }) => code.name === 'On Hold')
          .map((code: { name: string; description: string }) => code.description),
        ['On Hold'],
        'a new status name joins the codes, described by its name',
      );
      const sameCode = await status({ status: 'on hold' });
      assert.equal(sameCode.history[5].status, 'On Hold', 'status names match in any letter case');
      assert.equal(
        (await ok('GET', '/permanent-id-requests/status-codes', 'alice')).status_codes.length,
        codes.length,
      );

      const minted = await status({
        status: 'Completion',
        permanent_id: '10.5072/FK2TEST',
        comments: 'Minted.',
      });
      assert.equal(minted.permanent_id, '10.5072/FK2TEST');
      assert.deepEqual(
        minted.history.map((entry: { status: string }) => entry.status),
        ['Submitted', 'Evaluation', 'Evaluation', 'Approved', 'On Hold', 'On Hold', 'Completion'],
      );
      const again = await failure(
        'POST',
        `/admin/permanent-id-requests/${created.id}/status`,
        'curator',
        { permanent_id: '10.5072/OTHER' },
        400,
        'ERR_EXISTS',
      );
      assert.equal(again.identifier, '10.5072/FK2TEST');
      const unchanged = await ok('GET', `/permanent-id-requests/${created.id}`, 'alice');
      assert.deepEqual(unchanged, minted, 'a refused change adds no status');

      const empty = await s().call('POST', `/admin/permanent-id-requests/${created.id}/status`, {
        user: 'curator',
      });
      assert.equal(empty.status, 200, 'no body at all repeats the latest status');
      assert.equal(empty.json().history.at(-1).status, 'Completion');

      await failure(
        'POST',
        `/admin/permanent-id-requests/${randomUUID()}/status`,
        'curator',
        {},
        404,
        'ERR_NOT_FOUND',
      );
      await failure(
        'GET',
        `/admin/permanent-id-requests/${randomUUID()}`,
        'curator',
        undefined,
        404,
        'ERR_NOT_FOUND',
      );

      // A request without any status (only possible by hand) cannot take a change.
      const orphan = randomUUID();
      const doi = await s()
        .store.db.selectFrom('permanent_id_request_types')
        .select('id')
        .where('type', '=', 'DOI')
        .executeTakeFirstOrThrow();
      await s()
        .store.db.insertInto('permanent_id_requests')
        .values({
          id: orphan,
          requested_by: 'alice',
          type: doi.id,
          target_id: randomUUID(),
          target_type: 'file',
          original_path: null,
          permanent_id: null,
        })
        .execute();
      const dependency = await failure(
        'POST',
        `/admin/permanent-id-requests/${orphan}/status`,
        'curator',
        { status: 'Approved' },
        424,
        'ERR_MISSING_DEPENDENCY',
      );
      assert.equal(dependency.reason, 'No status found for Permanent ID Request.');
    });

    test('concurrent status changes all land, each at its own place in the history', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const created = await ok('POST', '/permanent-id-requests', 'alice', {
        type: 'DOI',
        target_id: randomUUID(),
        target_type: 'folder',
      });
      const answers = await Promise.all(
        Array.from({ length: 12 }, (_, index) =>
          s().call('POST', `/admin/permanent-id-requests/${created.id}/status`, {
            user: 'curator',
            body: { comments: `change ${index}` },
          }),
        ),
      );
      for (const answer of answers) assert.equal(answer.status, 200, answer.text);
      const history = (await ok('GET', `/permanent-id-requests/${created.id}`, 'alice')).history;
      assert.equal(history.length, 13);
      assert.deepEqual(
        new Set(history.slice(1).map((entry: { comments: string }) => entry.comments)),
        new Set(Array.from({ length: 12 }, (_, index) => `change ${index}`)),
      );
    });

    test('listings: own or everyone, status filter, each sort field both ways, paging, totals', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      // A private set of requesters, so earlier tests' requests stay out of the comparison.
      const tag = randomUUID().slice(0, 8);
      const users = [`amy${tag}`, `ben${tag}`, `cat${tag}`];
      const curators = [`kim${tag}`, `lee${tag}`];
      const made: string[] = [];
      for (let index = 0; index < 9; index += 1) {
        const user = users[index % 3]!;
        const created = await ok('POST', '/permanent-id-requests', user, {
          type: index % 2 === 0 ? 'DOI' : 'ARK',
          target_id: randomUUID(),
          target_type: index % 4 === 0 ? 'file' : 'folder',
          ...(index % 3 === 0 ? { original_path: `/lab/home/${user}/set${index}` } : {}),
        });
        made.push(created.id);
        await pause();
      }
      const statuses = ['Evaluation', 'Approved', 'Pending'];
      for (const [index, id] of made.entries()) {
        if (index % 4 === 3) continue; // stays Submitted
        await ok('POST', `/admin/permanent-id-requests/${id}/status`, curators[index % 2]!, {
          status: statuses[index % 3],
        });
        await pause();
      }

      const everything = await ok('GET', '/admin/permanent-id-requests', 'admin');
      const ours: Listing[] = everything.requests.filter((request: Listing) =>
        users.includes(request.requested_by),
      );
      assert.equal(ours.length, 9);
      assert.ok(everything.total >= 9);
      // The expected listing, computed from the details of each request.
      const expected: Listing[] = [];
      for (const id of made) {
        const details = await ok('GET', `/admin/permanent-id-requests/${id}`, 'admin');
        const first = details.history[0];
        const latest = details.history.at(-1);
        expected.push({
          id,
          type: details.type,
          target_id: details.target_id,
          target_type: details.target_type,
          requested_by: details.requested_by,
          ...(details.original_path === undefined ? {} : { original_path: details.original_path }),
          date_submitted: first.status_date,
          status: latest.status,
          date_updated: latest.status_date,
          updated_by: latest.updated_by,
        });
      }
      const byId = (a: Listing, b: Listing) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
      assert.deepEqual([...ours].sort(byId), [...expected].sort(byId));
      assert.deepEqual(
        ours.map((request) => request.id),
        [...expected]
          .sort((a, b) => b.date_submitted - a.date_submitted || (a.id < b.id ? 1 : -1))
          .map((request) => request.id),
        'default: newest submission first',
      );

      const compare = (field: keyof Listing, dir: 'asc' | 'desc') => (a: Listing, b: Listing) => {
        const left = a[field]!;
        const right = b[field]!;
        const order = left < right ? -1 : left > right ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
        return dir === 'asc' ? order : -order;
      };
      for (const field of [
        'type',
        'target_type',
        'requested_by',
        'date_submitted',
        'status',
        'date_updated',
        'updated_by',
      ] as const) {
        for (const dir of ['ASC', 'desc'] as const) {
          const want = [...expected]
            .sort(compare(field, dir.toLowerCase() as 'asc' | 'desc'))
            .map((request) => request.id);
          const listed = await ok(
            'GET',
            `/admin/permanent-id-requests?sort-field=${field}&sort-dir=${dir}`,
            'admin',
          );
          const got = listed.requests
            .filter((request: Listing) => users.includes(request.requested_by))
            .map((request: Listing) => request.id);
          assert.deepEqual(got, want, `${field} ${dir}`);
        }
      }

      // One requester's own listing: filtered by status, sorted, paged, with the total of the filter.
      const amy = users[0]!;
      const amyAll = expected.filter((request) => request.requested_by === amy);
      const own = await ok(
        'GET',
        '/permanent-id-requests?sort-field=date_submitted&sort-dir=asc',
        amy,
      );
      assert.equal(own.total, amyAll.length);
      assert.deepEqual(own.requests, [...amyAll].sort(compare('date_submitted', 'asc')));
      const wanted = ['Evaluation', 'Submitted'];
      const filtered = [...amyAll]
        .filter((request) => wanted.includes(request.status))
        .sort(compare('date_submitted', 'asc'));
      assert.ok(filtered.length >= 2, JSON.stringify(amyAll));
      const page = await ok(
        'GET',
        '/permanent-id-requests?statuses=Evaluation&statuses=Submitted&sort-field=date_submitted&sort-dir=ASC&limit=1&offset=1',
        amy,
      );
      assert.equal(page.total, filtered.length);
      assert.deepEqual(page.requests, filtered.slice(1, 2));
      const past = await ok('GET', '/permanent-id-requests?offset=50', amy);
      assert.deepEqual(past, { requests: [], total: amyAll.length });
      const adminFiltered = await ok(
        'GET',
        '/admin/permanent-id-requests?statuses=Pending&limit=100',
        'admin',
      );
      assert.ok(adminFiltered.requests.every((request: Listing) => request.status === 'Pending'));
      assert.deepEqual(
        adminFiltered.requests
          .filter((request: Listing) => users.includes(request.requested_by))
          .map((request: Listing) => request.id)
          .sort(),
        expected
          .filter((request) => request.status === 'Pending')
          .map((request) => request.id)
          .sort(),
      );
      assert.deepEqual(await ok('GET', '/permanent-id-requests', `nobody${tag}`), {
        requests: [],
        total: 0,
      });
    });

    test('bad requests are 400 (or 409 for conflicting repeats) with a clear error', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const good = { type: 'DOI', target_id: randomUUID(), target_type: 'folder' };
      const fields: [unknown, string][] = [
        [{ ...good, type: undefined }, 'type'],
        [{ ...good, type: 'ISBN' }, 'type'],
        [{ ...good, target_id: 'not-a-uuid' }, 'target_id'],
        [{ ...good, target_type: 'app' }, 'target_type'],
        [{ ...good, original_path: 7 }, 'original_path'],
      ];
      for (const [body, field] of fields) {
        const error = await failure(
          'POST',
          '/permanent-id-requests',
          'alice',
          body,
          400,
          'ERR_BAD_OR_MISSING_FIELD',
        );
        assert.equal(error.field, field);
      }
      await failure(
        'POST',
        '/permanent-id-requests',
        'alice',
        ['DOI'],
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await failure(
        'POST',
        '/permanent-id-requests',
        undefined,
        good,
        400,
        'ERR_MISSING_QUERY_PARAMETER',
      );
      assert.deepEqual(
        (await ok('GET', '/admin/permanent-id-requests?limit=1000', 'admin')).requests.filter(
          (request: Listing) => request.target_id === good.target_id,
        ),
        [],
        'nothing filed',
      );

      for (const query of [
        'sort-field=size',
        'sort-dir=up',
        'limit=-1',
        'limit=ten',
        'offset=1.5',
      ]) {
        await failure(
          'GET',
          `/permanent-id-requests?${query}`,
          'alice',
          undefined,
          400,
          'ERR_BAD_QUERY_PARAMETER',
        );
        await failure(
          'GET',
          `/admin/permanent-id-requests?${query}`,
          'admin',
          undefined,
          400,
          'ERR_BAD_QUERY_PARAMETER',
        );
      }
      await failure(
        'GET',
        '/permanent-id-requests?sort-dir=ASC&sort-dir=DESC',
        'alice',
        undefined,
        409,
        'ERR_CONFLICTING_QUERY_PARAMETER_VALUES',
      );
      assert.equal(
        (
          await s().call('GET', '/permanent-id-requests?sort-dir=ASC&sort-dir=asc', {
            user: 'alice',
          })
        ).status,
        409,
        'different spellings are different values',
      );
      assert.equal(
        (
          await s().call('GET', '/permanent-id-requests?sort-dir=ASC&sort-dir=ASC', {
            user: 'alice',
          })
        ).status,
        200,
      );

      const created = await ok('POST', '/permanent-id-requests', 'alice', good);
      const url = `/admin/permanent-id-requests/${created.id}/status`;
      await failure('POST', url, 'curator', { status: '' }, 400, 'ERR_BAD_OR_MISSING_FIELD');
      await failure(
        'POST',
        url,
        'curator',
        { status: 'x'.repeat(65) },
        400,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      await failure('POST', url, 'curator', { status: 5 }, 400, 'ERR_BAD_OR_MISSING_FIELD');
      await failure('POST', url, 'curator', { comments: ['a'] }, 400, 'ERR_BAD_OR_MISSING_FIELD');
      await failure('POST', url, 'curator', { permanent_id: '' }, 400, 'ERR_BAD_OR_MISSING_FIELD');
      await failure('POST', url, 'curator', 'Approved', 400, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(
        (await ok('GET', `/permanent-id-requests/${created.id}`, 'alice')).history.length,
        1,
        'no status was added',
      );
    });
  });
}
