// Comments on files and folders, and on apps of a remote apps service, through the gateway (spec
// "Comments", "States and transitions", "Errors" 5): real HTTP, the embedded metadata and data-info
// services, three users and an administrator. The stand-in apps service answers details of shapes
// the embedded one never sends (an integrator known by username only) and records how it is asked;
// comments on the embedded service's real apps: comments-apps.test.ts.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startBackend, type TestBackend } from '../support/backend.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const COMMENT_MAX_BYTES = 100;

/** Apps the stand-in apps service knows: one integrated by alice (by email), one by bob (by username). */
const aliceApp = randomUUID();
const bobApp = randomUUID();
const apps: Record<string, object> = {
  [aliceApp]: {
    id: aliceApp,
    name: 'Aligner',
    integrator_email: 'alice@example.org',
    integrator_name: 'Alice Tester',
  },
  [bobApp]: {
    id: bobApp,
    name: 'Counter',
    integrator_email: 'someone.else@example.org',
    integrator_name: 'bob',
  },
};

async function startAppsService(): Promise<TestBackend> {
  return startBackend((request, response) => {
    const match = /^\/apps\/de\/([^/]+)\/details$/.exec(request.path);
    const app = match ? apps[match[1]!] : undefined;
    response.writeHead(app ? 200 : 404, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify(app ?? { error_code: 'ERR_NOT_FOUND', reason: `no app at ${request.path}` }),
    );
  });
}

const commentsOn = (target: string) => `${target}/comments`;

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`comments (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let appsService: TestBackend;
    let file: any; // alice's file, shared read with bob and carol
    let privateFile: any; // alice's file nobody else can read
    let folder: any; // bob's folder, shared read with dave

    const entry = (id: string) => `/secured/filesystem/entry/${id}`;
    const app = (id: string) => `/apps/${id}`;
    const post = (user: string | null, target: string, comment: unknown) =>
      g!.call(user, 'POST', commentsOn(target), { json: { comment } });
    const list = async (user: string, target: string) => {
      const answer = await g!.call(user, 'GET', commentsOn(target));
      assert.equal(answer.status, 200, answer.text);
      return answer.body.comments as any[];
    };
    const patch = (user: string | null, target: string, commentId: string, query: string) =>
      g!.call(user, 'PATCH', `${commentsOn(target)}/${commentId}?${query}`);

    before(async () => {
      appsService = await startAppsService();
      g = await startMetadataGateway({
        engine,
        env: { APPS_URL: appsService.url, COMMENT_MAX_BYTES: String(COMMENT_MAX_BYTES) },
      });
      if (!g) return;
      file = await g.upload('alice', g.home('alice'), 'notes.txt', 'hello');
      privateFile = await g.upload('alice', g.home('alice'), 'diary.txt', 'secret');
      folder = await g.folder('bob', `${g.home('bob')}/results`);
      const shared = await g.call('alice', 'POST', '/secured/share', {
        json: {
          sharing: ['bob', 'carol'].map((user) => ({
            user,
            paths: [{ path: file.path, permission: 'read' }],
          })),
        },
      });
      assert.equal(shared.status, 200, shared.text);
      const sharedFolder = await g.call('bob', 'POST', '/secured/share', {
        json: { sharing: [{ user: 'dave', paths: [{ path: folder.path, permission: 'read' }] }] },
      });
      assert.equal(sharedFolder.status, 200, sharedFolder.text);
    });
    after(async () => {
      await g?.close();
      await appsService?.close();
    });

    test('posting and listing on an entry: 201 {comment}, then {comments} with it', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const posted = await post('bob', entry(file.id), 'Nice notes');
      assert.equal(posted.status, 201, posted.text);
      const { comment } = posted.body;
      assert.match(comment.id, /^[0-9a-f-]{36}$/);
      assert.equal(comment.commenter, 'bob');
      assert.equal(comment.comment, 'Nice notes');
      assert.equal(comment.retracted, false);
      assert.ok(
        Math.abs(comment.post_time - Date.now()) < 60_000,
        'post_time is milliseconds since the epoch',
      );
      const listed = await list('alice', entry(file.id));
      assert.deepEqual(
        listed.find((item) => item.id === comment.id),
        comment,
      );
      // A folder takes comments too; the id may come in upper case.
      const onFolder = await post('bob', entry(folder.id.toUpperCase()), 'Folder note');
      assert.equal(onFolder.status, 201, onFolder.text);
      assert.deepEqual(
        (await list('bob', entry(folder.id))).map((item) => item.comment),
        ['Folder note'],
      );
    });

    test("a remote apps service is asked for the app's details as the caller; its 404 is the comment's 404", async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const posted = await post('carol', app(bobApp), 'Works well');
      assert.equal(posted.status, 201, posted.text);
      assert.equal(
        appsService.requests
          .find((request) => request.path === `/apps/de/${bobApp}/details`)
          ?.query.get('user'),
        'carol',
      );
      const unknown = randomUUID();
      assert.equal((await post('carol', app(unknown), 'x')).status, 404);
      assert.equal((await g.call('carol', 'GET', commentsOn(app(unknown)))).status, 404);
      assert.equal(
        (await patch('carol', app(unknown), posted.body.comment.id, 'retracted=true')).status,
        404,
      );
      assert.equal(
        appsService.requests
          .find((request) => request.path === `/apps/de/${unknown}/details`)
          ?.query.get('user'),
        'carol',
      );
    });

    test('an entry that does not exist or that the caller cannot read is 404 for POST, GET and PATCH', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const mine = await post('alice', entry(privateFile.id), 'mine');
      assert.equal(mine.status, 201, mine.text);
      for (const target of [entry(privateFile.id), entry(randomUUID()), entry('not-a-uuid')]) {
        const posted = await post('bob', target, 'hi');
        assert.equal(posted.status, 404, `${target}: ${posted.text}`);
        assert.equal(posted.body.error_code, 'ERR_NOT_FOUND');
        assert.equal((await g.call('bob', 'GET', commentsOn(target))).status, 404);
        assert.equal(
          (await patch('bob', target, mine.body.comment.id, 'retracted=true')).status,
          404,
        );
      }
      // Nothing was stored by the refused attempts.
      assert.deepEqual(
        (await list('alice', entry(privateFile.id))).map((item) => item.comment),
        ['mine'],
      );
    });

    test('bad bodies are 400, comments over COMMENT_MAX_BYTES are 413', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      for (const target of [entry(file.id), app(aliceApp)]) {
        const invalid = await g.call('bob', 'POST', commentsOn(target), { raw: '{"comment": ' });
        assert.equal(invalid.status, 400, invalid.text);
        assert.equal(invalid.body.error_code, 'ERR_INVALID_JSON');
        for (const body of [{}, { comment: 42 }, { comment: '' }, { text: 'hi' }]) {
          const refused = await g.call('bob', 'POST', commentsOn(target), { json: body });
          assert.equal(refused.status, 400, `${JSON.stringify(body)}: ${refused.text}`);
          assert.equal(refused.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
        }
        // The limit counts UTF-8 bytes: 50 two-byte characters fit, 51 do not.
        assert.equal((await post('bob', target, 'é'.repeat(50))).status, 201);
        const tooLong = await post('bob', target, 'é'.repeat(51));
        assert.equal(tooLong.status, 413, tooLong.text);
        assert.equal(tooLong.body.error_code, 'ERR_REQUEST_BODY_TOO_LARGE');
        const huge = await post('bob', target, 'x'.repeat(100_000));
        assert.equal(huge.status, 413, huge.text);
      }
      assert.equal(
        (await list('bob', entry(file.id))).filter((item) => item.comment.startsWith('é')).length,
        1,
      );
    });

    test('every comment route is 401 without credentials', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const id = randomUUID();
      const routes: [string, string][] = [
        ['POST', commentsOn(app(aliceApp))],
        ['GET', commentsOn(app(aliceApp))],
        ['PATCH', `${commentsOn(app(aliceApp))}/${id}?retracted=true`],
        ['POST', commentsOn(entry(file.id))],
        ['GET', commentsOn(entry(file.id))],
        ['PATCH', `${commentsOn(entry(file.id))}/${id}?retracted=true`],
        ['PATCH', `/filesystem/entry/${file.id}/comments/${id}?retracted=true`],
        ['PATCH', `/admin/apps/${aliceApp}/comments/${id}?retracted=true`],
        ['PATCH', `/admin/filesystem/entry/${file.id}/comments/${id}?retracted=true`],
        ['DELETE', `/admin/apps/${aliceApp}/comments/${id}`],
        ['DELETE', `/admin/filesystem/entry/${file.id}/comments/${id}`],
        ['GET', '/admin/comments/bob'],
        ['DELETE', '/admin/comments/bob'],
      ];
      for (const [method, route] of routes) {
        const answer = await g.call(
          null,
          method,
          route,
          method === 'POST' ? { json: { comment: 'x' } } : {},
        );
        assert.equal(answer.status, 401, `${method} ${route}: ${answer.text}`);
      }
    });

    test('PATCH: retracted missing or not a boolean is 400, repeated with different values 409, unknown comments 404', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const { comment } = (await post('bob', entry(file.id), 'to be patched')).body;
      for (const target of [entry(file.id), app(aliceApp)]) {
        const missing = await patch('bob', target, comment.id, '');
        assert.equal(missing.status, 400, missing.text);
        assert.equal(missing.body.error_code, 'ERR_MISSING_QUERY_PARAMETER');
        for (const value of ['yes', '1', '', 'truthy']) {
          const bad = await patch('bob', target, comment.id, `retracted=${value}`);
          assert.equal(bad.status, 400, `${value}: ${bad.text}`);
        }
        const conflicting = await patch(
          'bob',
          target,
          comment.id,
          'retracted=true&retracted=false',
        );
        assert.equal(conflicting.status, 409, conflicting.text);
        assert.equal(conflicting.body.error_code, 'ERR_CONFLICTING_QUERY_PARAMETER_VALUES');
        assert.equal((await patch('bob', target, randomUUID(), 'retracted=true')).status, 404);
        assert.equal((await patch('bob', target, 'not-a-uuid', 'retracted=true')).status, 404);
      }
      // The comment belongs to the file, not to the app: through the app it is not found.
      assert.equal((await patch('bob', app(aliceApp), comment.id, 'retracted=true')).status, 404);
      // Identical repeats are one value; any letter case is understood.
      assert.equal(
        (await patch('bob', entry(file.id), comment.id, 'retracted=TRUE&retracted=TRUE')).status,
        200,
      );
      assert.equal(
        (await list('bob', entry(file.id))).find((item) => item.id === comment.id).retracted,
        true,
      );
    });

    test('retraction on an entry: commenter or owner (through the admin variant) retracts, only the retractor readmits', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const { comment } = (await post('bob', entry(file.id), 'retract me')).body;
      const state = async () =>
        (await list('carol', entry(file.id))).find((item) => item.id === comment.id).retracted;
      const details = async () =>
        ((await g!.call(admin, 'GET', '/admin/comments/bob')).body.comments as any[]).find(
          (item) => item.id === comment.id,
        );

      // carol can read the file but owns neither it nor the comment.
      const carol = await patch('carol', entry(file.id), comment.id, 'retracted=true');
      assert.equal(carol.status, 403, carol.text);
      assert.equal(carol.body.error_code, 'ERR_NOT_OWNER');
      assert.equal(await state(), false);

      // alice owns the file: metadata's user route would refuse her (not the commenter), so this
      // succeeding shows the gateway took the admin variant.
      const owner = await patch('alice', entry(file.id), comment.id, 'retracted=true');
      assert.equal(owner.status, 200, owner.text);
      assert.equal(await state(), true);
      assert.equal((await details()).retracted_by, 'alice');

      // Readmitting belongs to the retractor alone: not the commenter, not a reader.
      for (const user of ['bob', 'carol']) {
        const refused = await patch(user, entry(file.id), comment.id, 'retracted=false');
        assert.equal(refused.status, 403, `${user}: ${refused.text}`);
      }
      assert.equal(
        (await patch('alice', entry(file.id), comment.id, 'retracted=false')).status,
        200,
      );
      assert.equal(await state(), false);
      assert.equal((await details()).retracted_by, undefined);

      // The commenter retracts their own comment; then the owner may not readmit it, the commenter may.
      assert.equal((await patch('bob', entry(file.id), comment.id, 'retracted=true')).status, 200);
      assert.equal((await details()).retracted_by, 'bob');
      assert.equal(
        (await patch('alice', entry(file.id), comment.id, 'retracted=false')).status,
        403,
      );
      // The route without /secured behaves the same.
      assert.equal(
        (
          await g.call(
            'bob',
            'PATCH',
            `/filesystem/entry/${file.id}/comments/${comment.id}?retracted=false`,
          )
        ).status,
        200,
      );
      assert.equal(await state(), false);
    });

    test('retraction on an app: the integrator (by email or by username) retracts through the admin variant', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      // alice integrated aliceApp (her email); bob integrated bobApp (his username).
      for (const [appId, integrator, other] of [
        [aliceApp, 'alice', 'bob'],
        [bobApp, 'bob', 'alice'],
      ] as const) {
        const { comment } = (await post('carol', app(appId), `on ${appId}`)).body;
        const refused = await patch(other, app(appId), comment.id, 'retracted=true');
        assert.equal(refused.status, 403, refused.text);
        const retracted = await patch(integrator, app(appId), comment.id, 'retracted=true');
        assert.equal(retracted.status, 200, retracted.text);
        assert.equal(
          (await list(other, app(appId))).find((item) => item.id === comment.id).retracted,
          true,
        );
        assert.equal(
          (await patch('carol', app(appId), comment.id, 'retracted=false')).status,
          403,
          'the commenter did not retract it',
        );
        assert.equal(
          (await patch(integrator, app(appId), comment.id, 'retracted=false')).status,
          200,
        );
        // The commenter's own retraction goes through too.
        assert.equal((await patch('carol', app(appId), comment.id, 'retracted=true')).status, 200);
        assert.equal(
          (await list(other, app(appId))).find((item) => item.id === comment.id).retracted,
          true,
        );
      }
    });

    test('administration: PATCH and DELETE of one comment, listing and deleting all of a commenter', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const onApp = (await post('dave', app(aliceApp), 'spam 1')).body.comment;
      const onFile = (await post('dave', entry(folder.id), 'spam 2')).body.comment;
      const onOther = (await post('dave', entry(folder.id), 'spam 3')).body.comment;
      const appRoute = `/admin/apps/${aliceApp}/comments/${onApp.id}`;
      const fileRoute = `/admin/filesystem/entry/${folder.id}/comments/${onFile.id}`;

      // Not an administrator: 403.
      for (const [method, route] of [
        ['DELETE', appRoute],
        ['PATCH', `${appRoute}?retracted=true`],
        ['GET', '/admin/comments/dave'],
        ['DELETE', '/admin/comments/dave'],
      ] as const) {
        assert.equal((await g.call('bob', method, route)).status, 403, `${method} ${route}`);
      }

      // Admin retraction and readmission (the administrator is then the retractor).
      assert.equal((await g.call(admin, 'PATCH', `${appRoute}?retracted=true`)).status, 200);
      assert.equal(
        (await list('bob', app(aliceApp))).find((item) => item.id === onApp.id).retracted,
        true,
      );
      assert.equal((await g.call(admin, 'PATCH', `${appRoute}?retracted=maybe`)).status, 400);
      assert.equal((await g.call(admin, 'PATCH', `${appRoute}?retracted=false`)).status, 200);

      const listed = await g.call(admin, 'GET', '/admin/comments/dave');
      assert.equal(listed.status, 200, listed.text);
      assert.deepEqual(
        listed.body.comments.map((item: any) => item.id).sort(),
        [onApp.id, onFile.id, onOther.id].sort(),
      );
      const detail = listed.body.comments.find((item: any) => item.id === onFile.id);
      assert.equal(detail.target_id, folder.id);
      assert.equal(detail.target_type, 'folder');
      assert.equal(detail.deleted, false);

      // Deleting one comment: 200, then it is gone from the listing; again, or on the wrong target, 404.
      assert.equal((await g.call(admin, 'DELETE', appRoute)).status, 200);
      assert.equal(
        (await list('bob', app(aliceApp))).some((item) => item.id === onApp.id),
        false,
      );
      assert.equal((await g.call(admin, 'DELETE', appRoute)).status, 404);
      assert.equal(
        (await g.call(admin, 'DELETE', `/admin/apps/${bobApp}/comments/${onFile.id}`)).status,
        404,
      );
      assert.equal(
        (await g.call(admin, 'DELETE', `/admin/apps/${aliceApp}/comments/${randomUUID()}`)).status,
        404,
      );
      assert.equal((await g.call(admin, 'DELETE', fileRoute)).status, 200);
      assert.equal((await g.call(admin, 'DELETE', fileRoute)).status, 404);
      // The existing gateway's misspelling still reaches the same route.
      assert.equal(
        (
          await g.call(
            admin,
            'DELETE',
            `/admin/filsystem/entry/${folder.id}/comments/${onOther.id}`,
          )
        ).status,
        200,
      );
      assert.deepEqual(
        await list('bob', entry(folder.id)).then((items) =>
          items.filter((item) => item.commenter === 'dave'),
        ),
        [],
      );

      // Deleting everything by one commenter, for good.
      await post('dave', app(bobApp), 'spam 4');
      assert.equal((await g.call(admin, 'DELETE', '/admin/comments/dave')).status, 200);
      assert.deepEqual((await g.call(admin, 'GET', '/admin/comments/dave')).body.comments, []);
      assert.equal(
        (await list('bob', app(bobApp))).some((item) => item.commenter === 'dave'),
        false,
      );
    });
  });
}
