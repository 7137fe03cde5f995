// Tool requests in the embedded apps service, through the gateway, on each engine
// (docs/api/tools.md): a user requests a tool (bad bodies 400 naming the field), lists their own
// requests; administrators list everyone's (filtered by status and requester, paged), read one with its
// history, move it through several statuses (an unknown status name becomes a new status code),
// each change told to the requester with a `tool` notification; status codes are listed, and
// deleted only when no request uses them; requests are deleted; non-administrators are refused
// the admin routes.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { eventually } from '../../../support/fileio.ts';
import { engines, skipWithout } from '../../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../../support/metadata-gateway.ts';

const requestBody = (name: string, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name}: please install it`,
  source_url: 'https://example.org/tool.tar.gz',
  version: '1.2.3',
  documentation_url: 'https://example.org/docs',
  attribution: 'Someone et al.',
  multithreaded: true,
  test_data_path: '/iplant/home/alice/test-data',
  cmd_line: 'tool --in a --out b',
  ...extra,
});

for (const engine of engines) {
  describe(`tool requests (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    const tag = randomUUID().slice(0, 8);
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
    });
    after(async () => gw?.close());

    const toolNotifications = (caller: string, action: string, count = 1) =>
      eventually(
        async () => {
          const { messages } = await gw.ok(
            caller,
            'GET',
            '/secured/notifications/messages?sortDir=asc',
          );
          const found = (messages as any[]).filter(
            (n) => n.type === 'tool' && n.payload?.action === action,
          );
          return found.length >= count ? found : undefined;
        },
        10_000,
        `${count} tool ${action} notification(s) for ${caller}`,
      ) as Promise<any[]>;

    test('status codes are listed, Submitted first', async () => {
      const { status_codes: codes } = await gw.ok('alice', 'GET', '/tool-requests/status-codes');
      assert.deepEqual(
        codes.slice(0, 7).map((code: any) => code.name),
        [
          'Submitted',
          'Pending',
          'Evaluation',
          'Installation',
          'Validation',
          'Completion',
          'Failed',
        ],
      );
      assert.ok(codes.every((code: any) => code.id && typeof code.description === 'string'));
    });

    test('a request submitted, listed, moved through its statuses, each change told', async () => {
      const made = await gw.ok('alice', 'POST', '/tool-requests', {
        json: requestBody(`samtools ${tag}`),
      });
      assert.match(made.id, /^[0-9a-f-]{36}$/);
      assert.match(made.submitted_by, /^alice@/);
      assert.equal(made.source_url, 'https://example.org/tool.tar.gz');
      assert.equal(made.multithreaded, true);
      assert.equal(made.cmd_line, 'tool --in a --out b');
      assert.equal(made.history.length, 1);
      assert.equal(made.history[0].status, 'Submitted');
      assert.match(made.history[0].updated_by, /^alice@/);
      const submitted = await toolNotifications('alice', 'tool_request_submitted');
      assert.equal(submitted[0].payload.id, made.id);

      const mine = await gw.ok('alice', 'GET', '/tool-requests');
      const entry = mine.tool_requests.find((r: any) => r.id === made.id);
      assert.deepEqual(Object.keys(entry).sort(), [
        'date_submitted',
        'date_updated',
        'id',
        'name',
        'requested_by',
        'status',
        'updated_by',
        'version',
      ]);
      assert.equal(entry.status, 'Submitted');
      assert.match(entry.requested_by, /^alice@/);
      assert.equal(
        (await gw.ok('bob', 'GET', '/tool-requests')).tool_requests.some(
          (r: any) => r.id === made.id,
        ),
        false,
      );

      const all = await gw.ok(admin, 'GET', '/admin/tool-requests?limit=0');
      assert.ok(all.tool_requests.some((r: any) => r.id === made.id));

      const steps: [string, string][] = [
        ['Evaluation', 'looking at it'],
        ['Installation', 'installing'],
        ['Completion', 'installed as samtools 1.2.3'],
      ];
      for (const [index, [status, comments]] of steps.entries()) {
        const moved = await gw.ok(admin, 'POST', `/admin/tool-requests/${made.id}/status`, {
          json: { status, comments },
        });
        assert.equal(moved.history.length, index + 2);
        const { status_date: date, updated_by: by, ...change } = moved.history.at(-1);
        assert.deepEqual(change, { status, comments });
        assert.equal(typeof date, 'number');
        assert.match(by, new RegExp(`^${admin}@`));
        const told = await toolNotifications('alice', 'tool_request_status_change', index + 1);
        const last = told.at(-1);
        assert.equal(last.payload.status, status);
        assert.equal(last.payload.comments, comments);
        assert.equal(last.payload.id, made.id);
        assert.equal(last.payload.toolname, `samtools ${tag}`);
        assert.match(last.subject, new RegExp(status));
      }
      const details = await gw.ok(admin, 'GET', `/admin/tool-requests/${made.id}`);
      assert.deepEqual(
        details.history.map((h: any) => h.status),
        ['Submitted', 'Evaluation', 'Installation', 'Completion'],
      );
      const listed = (await gw.ok('alice', 'GET', '/tool-requests')).tool_requests.find(
        (r: any) => r.id === made.id,
      );
      assert.equal(listed.status, 'Completion');
      assert.match(listed.updated_by, new RegExp(`^${admin}@`));
    });

    test('administrators filter by status and requester, and page', async () => {
      const bobs = [];
      for (const n of [1, 2, 3])
        bobs.push(
          await gw.ok('bob', 'POST', '/tool-requests', { json: requestBody(`bob ${n} ${tag}`) }),
        );
      await gw.ok(admin, 'POST', `/admin/tool-requests/${bobs[1].id}/status`, {
        json: { status: 'pending', comments: 'which version?' },
      });
      const pending = await gw.ok(
        admin,
        'GET',
        '/admin/tool-requests?status=Pending&requested-by=bob',
      );
      assert.deepEqual(
        pending.tool_requests.map((r: any) => [r.id, r.status]),
        [[bobs[1].id, 'Pending']],
      );
      const bobsAll = await gw.ok(
        admin,
        'GET',
        '/admin/tool-requests?requested-by=bob&sort-field=name&sort-dir=desc&limit=2&offset=1',
      );
      assert.equal(bobsAll.total, 3);
      assert.deepEqual(
        bobsAll.tool_requests.map((r: any) => r.name),
        [`bob 2 ${tag}`, `bob 1 ${tag}`],
      );
      const bad = await gw.call(admin, 'GET', '/admin/tool-requests?sort-field=colour');
      assert.equal(bad.status, 400);
    });

    test('an unknown status becomes a status code; codes in use are kept, unused ones deleted', async () => {
      const made = await gw.ok('carol', 'POST', '/tool-requests', {
        json: requestBody(`odd ${tag}`, { source_url: undefined, source_upload_file: '/up/x.tgz' }),
      });
      const status = `Waiting ${tag}`;
      const moved = await gw.ok(admin, 'POST', `/admin/tool-requests/${made.id}/status`, {
        json: { status },
      });
      assert.equal(moved.history.at(-1).status, status);
      assert.equal(moved.history.at(-1).comments, '');
      const codes = (await gw.ok('carol', 'GET', '/tool-requests/status-codes')).status_codes;
      const code = codes.find((c: any) => c.name === status);
      assert.ok(code);
      const inUse = await gw.call(admin, 'DELETE', `/admin/tool-requests/status-codes/${code.id}`);
      assert.equal(inUse.status, 400);
      assert.equal(inUse.body.error_code, 'ERR_ILLEGAL_ARGUMENT');

      assert.deepEqual(await gw.ok(admin, 'DELETE', `/admin/tool-requests/${made.id}`), {
        id: made.id,
      });
      assert.equal((await gw.call(admin, 'GET', `/admin/tool-requests/${made.id}`)).status, 404);
      await gw.ok(admin, 'DELETE', `/admin/tool-requests/status-codes/${code.id}`);
      assert.ok(
        !(await gw.ok('carol', 'GET', '/tool-requests/status-codes')).status_codes.some(
          (c: any) => c.id === code.id,
        ),
      );
      const gone = await gw.call(admin, 'DELETE', `/admin/tool-requests/status-codes/${code.id}`);
      assert.equal(gone.status, 404);
      assert.equal(
        (
          await gw.call(admin, 'POST', `/admin/tool-requests/${randomUUID()}/status`, {
            json: { status: 'Pending' },
          })
        ).status,
        404,
      );
    });

    test('bad requests and status updates are 400 naming the field', async () => {
      const cases: [unknown, string][] = [
        [{ ...requestBody('x'), name: '' }, 'name'],
        [{ ...requestBody('x'), description: undefined }, 'description'],
        [{ ...requestBody('x'), version: 2 }, 'version'],
        [{ ...requestBody('x'), source_url: undefined }, 'source_url'],
        [{ ...requestBody('x'), multithreaded: 'yes' }, 'multithreaded'],
        [{ ...requestBody('x'), cmd_line: ['tool'] }, 'cmd_line'],
      ];
      for (const [body, field] of cases) {
        const answer = await gw.call('dave', 'POST', '/tool-requests', { json: body });
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.error_code, 'ERR_BAD_OR_MISSING_FIELD', field);
        assert.equal(answer.body.field, field);
      }
      assert.deepEqual((await gw.ok('dave', 'GET', '/tool-requests')).tool_requests, []);
      const made = await gw.ok('dave', 'POST', '/tool-requests', { json: requestBody(`d ${tag}`) });
      for (const [body, field] of [
        [{}, 'status'],
        [{ status: '' }, 'status'],
        [{ status: 'Pending', comments: 3 }, 'comments'],
      ] as const) {
        const answer = await gw.call(admin, 'POST', `/admin/tool-requests/${made.id}/status`, {
          json: body,
        });
        assert.equal(answer.status, 400, field);
        assert.equal(answer.body.field, field);
      }
    });

    test('non-administrators are refused the admin tool-request routes', async () => {
      const id = randomUUID();
      for (const [method, route] of [
        ['GET', '/admin/tool-requests'],
        ['GET', `/admin/tool-requests/${id}`],
        ['DELETE', `/admin/tool-requests/${id}`],
        ['POST', `/admin/tool-requests/${id}/status`],
        ['DELETE', `/admin/tool-requests/status-codes/${id}`],
      ] as const) {
        const answer = await gw.call(
          'alice',
          method,
          route,
          method === 'POST' ? { json: { status: 'Pending' } } : {},
        );
        assert.equal(answer.status, 403, `${method} ${route}`);
      }
    });
  });
}
