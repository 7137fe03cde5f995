// The embedded data-info service's read side (backends.md §2.1–2.3): navigation, paged listings
// sorted and paged by the database, what a caller may see of others' data, downloads with ranges,
// ids, chunks, bulk stats, folder creation — on SQLite and PostgreSQL, over real HTTP.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { engines, home, zone, type DataInfoHost } from '../../support/data-info-host.ts';

const enc = encodeURIComponent;
const dataPath = (path: string) => `/data/path${path.split('/').map(enc).join('/')}`;

for (const engine of engines) {
  describe(`data-info read side on ${engine.name}`, () => {
    let service: DataInfoHost | undefined;
    const s = () => service!;
    const a = home('alice');
    const b = home('bob');

    /** A file made through the service (raw upload), answering its stat. */
    const put = async (
      user: string,
      path: string,
      content: string | Buffer = `content of ${path}`,
    ) => {
      const slash = path.lastIndexOf('/');
      const answer = await s().send(
        'POST',
        `/data?dest=${enc(path.slice(0, slash))}&filename=${enc(path.slice(slash + 1))}`,
        user,
        {
          body: content,
          headers: { 'content-type': 'application/octet-stream' },
        },
      );
      assert.equal(answer.status, 200, answer.text);
      return answer.json().file;
    };
    const mkdir = async (user: string, ...paths: string[]) => {
      const answer = await s().send('POST', '/data/directories', user, { json: { paths } });
      assert.equal(answer.status, 200, answer.text);
      return answer.json().paths as string[];
    };
    const list = async (user: string, path: string, query = 'limit=100') =>
      s().send('GET', `${dataPath(path)}?${query}`, user);

    before(async () => {
      service = await engine.open();
      if (!service) return;
      // alice and bob exist (homes made on first sight); bob shares one file deep in his home with alice.
      await mkdir('alice', `${a}/docs`, `${a}/empty`);
      await mkdir('bob', `${b}/private/inner`, `${b}/projects/shared-here`);
      await put('bob', `${b}/private/secret.txt`, 'secret');
      await put('bob', `${b}/projects/shared-here/result.csv`, 'x,y\n1,2\n');
      await put('bob', `${b}/projects/other.txt`, 'other');
      await s().grant(`${b}/projects/shared-here/result.csv`, 'alice', 'read');
    });
    after(async () => service?.close());

    test('navigation: home, roots with labels and levels, sub-folders of a path', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const homeEntry = await s().send('GET', '/navigation/home', 'alice');
      assert.equal(homeEntry.status, 200, homeEntry.text);
      assert.deepEqual(Object.keys(homeEntry.json()).sort(), [
        'date-created',
        'date-modified',
        'id',
        'label',
        'path',
        'permission',
      ]);
      assert.equal(homeEntry.json().path, a);
      assert.equal(homeEntry.json().label, 'alice');
      assert.equal(homeEntry.json().permission, 'own');

      const roots = await s().send('GET', '/navigation/root', 'alice');
      assert.equal(roots.status, 200, roots.text);
      const body = roots.json();
      assert.deepEqual(
        body.roots.map((root: any) => [root.path, root.label, root.permission]),
        [
          [a, 'alice', 'own'],
          [`/${zone}/home/shared`, 'Community Data', 'read'],
          [`/${zone}/home`, 'Shared With Me', 'read'],
          [`/${zone}/trash/home/alice`, 'Trash', 'own'],
        ],
      );
      assert.deepEqual(body['base-paths'], {
        user_home_path: a,
        user_trash_path: `/${zone}/trash/home/alice`,
        base_trash_path: `/${zone}/trash`,
      });

      const nav = await s().send('GET', `/navigation/path/${zone}/home/alice`, 'alice');
      assert.equal(nav.status, 200, nav.text);
      assert.deepEqual(
        nav.json().folder.folders.map((folder: any) => folder.label),
        ['docs', 'empty'],
      );
      assert.equal(nav.json().folder.folders[0].folders, undefined, 'sub-entries carry no folders');

      // Shared with me: alice sees her home, the community folder and bob's home (on the way to the shared file).
      const shared = await s().send('GET', `/navigation/path/${zone}/home`, 'alice');
      assert.deepEqual(
        shared.json().folder.folders.map((folder: any) => [folder.path, folder.permission]),
        [
          [a, 'own'],
          [b, 'read'],
          [`/${zone}/home/shared`, 'read'],
        ],
      );
      const bobs = await s().send('GET', `/navigation/path${b}`, 'alice');
      assert.deepEqual(
        bobs.json().folder.folders.map((folder: any) => folder.path),
        [`${b}/projects`],
        "only the folder leading to the shared file; bob's private folder stays hidden",
      );
      const anonymous = await s().send('GET', '/navigation/home', 'anonymous');
      assert.equal(anonymous.json().error_code, 'ERR_NOT_A_USER');
      const noUser = await s().send('GET', '/navigation/root');
      assert.equal(noUser.json().error_code, 'ERR_MISSING_QUERY_PARAMETER');
    });

    test('listing: sorted and paged by the database, totals, filters, bad names, readme', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const folder = `${a}/sorting`;
      await mkdir('alice', `${folder}/Beta`, `${folder}/alpha`);
      // Different sizes and creation order, mixed case, a bad character.
      await put('alice', `${folder}/b.csv`, '1,2,3\n');
      await put('alice', `${folder}/A.fastq`, '@r\nACGT\n+\n!!!!\n');
      await put('alice', `${folder}/c's.txt`, 'c');
      await put('alice', `${folder}/README.md`, '# read me');
      await put('alice', `${folder}/d.csv`, 'a much longer line of text, really\n');

      const byName = await list('alice', folder);
      assert.equal(byName.status, 200, byName.text);
      const page = byName.json();
      assert.equal(page.path, folder);
      assert.equal(page.name, 'sorting');
      assert.equal(page.permission, 'own');
      assert.equal(page.total, 7);
      assert.equal(page.totalBad, 0);
      assert.deepEqual(
        page.folders.map((entry: any) => entry.name),
        ['alpha', 'Beta'],
        'case-folded name order',
      );
      assert.deepEqual(
        page.files.map((entry: any) => entry.name),
        ['A.fastq', 'b.csv', "c's.txt", 'd.csv', 'README.md'],
      );
      const csv = page.files[1];
      assert.deepEqual(
        Object.keys(csv).sort(),
        [
          'badName',
          'dateCreated',
          'dateModified',
          'id',
          'infoType',
          'name',
          'path',
          'permission',
          'size',
        ].sort(),
      );
      assert.equal(csv.infoType, 'csv');
      assert.equal(csv.size, 6);
      assert.equal(page.folders[0].infoType, null);
      assert.equal(page.folders[0].size, 0);
      assert.equal(page.files[2].badName, true, "the default bad characters include '");
      assert.equal(page.readme.name, 'README.md');

      // Folders first, then files in the chosen order; sort names and directions in any case.
      const bySize = await list('alice', folder, 'limit=100&sort-field=SIZE&sort-dir=desc');
      assert.deepEqual(
        bySize.json().files.map((entry: any) => entry.name),
        ['d.csv', 'A.fastq', 'README.md', 'b.csv', "c's.txt"],
      );
      const byCreated = await list(
        'alice',
        folder,
        'limit=100&sort-field=datecreated&sort-dir=ASC&entity-type=FILE',
      );
      assert.equal(byCreated.json().total, 5, 'entity-type counts only files');
      assert.deepEqual(byCreated.json().folders, []);

      // Paging: limit/offset over folders then files, the same total on every page.
      const seen: string[] = [];
      for (let offset = 0; offset < 7; offset += 3) {
        const answer = await list('alice', folder, `limit=3&offset=${offset}`);
        const body = answer.json();
        assert.equal(body.total, 7);
        seen.push(
          ...body.folders.map((entry: any) => entry.name),
          ...body.files.map((entry: any) => entry.name),
        );
      }
      assert.deepEqual(seen, [
        'alpha',
        'Beta',
        'A.fastq',
        'b.csv',
        "c's.txt",
        'd.csv',
        'README.md',
      ]);

      const csvOnly = await list(
        'alice',
        folder,
        'limit=100&info-type=csv&info-type=fastq&entity-type=file',
      );
      assert.deepEqual(
        csvOnly.json().files.map((entry: any) => entry.name),
        ['A.fastq', 'b.csv', 'd.csv'],
      );
      assert.equal(csvOnly.json().total, 3);
      const infoAny = await list('alice', folder, 'limit=100&info-type=csv');
      assert.equal(infoAny.json().total, 4, 'folders stay listed under an info-type filter');

      const flagged = await list(
        'alice',
        folder,
        `limit=100&bad-chars=&bad-name=b.csv&bad-path=${enc(`${folder}/alpha`)}`,
      );
      const flags = Object.fromEntries(
        [...flagged.json().folders, ...flagged.json().files].map((entry: any) => [
          entry.name,
          entry.badName,
        ]),
      );
      assert.deepEqual(flags, {
        alpha: true,
        Beta: false,
        'A.fastq': false,
        'b.csv': true,
        "c's.txt": false,
        'd.csv': false,
        'README.md': false,
      });

      const empty = await list('alice', `${a}/empty`);
      assert.deepEqual(
        [empty.json().total, empty.json().files, empty.json().folders, empty.json().readme],
        [0, [], [], false],
      );
    });

    test('listing refuses bad parameters with clear errors', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const cases: [string, number, string][] = [
        ['', 400, 'ERR_MISSING_QUERY_PARAMETER'],
        ['limit=ten', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=-1', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=10&offset=x', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=10&sort-field=owner', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=10&sort-dir=up', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=10&entity-type=link', 400, 'ERR_BAD_QUERY_PARAMETER'],
        ['limit=10&limit=20', 409, 'ERR_CONFLICTING_QUERY_PARAMETER_VALUES'],
      ];
      for (const [query, status, code] of cases) {
        const answer = await list('alice', a, query);
        assert.equal(answer.status, status, `${query}: ${answer.text}`);
        assert.equal(answer.json().error_code, code, query);
      }
      assert.equal(
        (await list('alice', a, 'limit=10&limit=10')).status,
        200,
        'an identical repeat is harmless',
      );
      const missing = await list('alice', `${a}/nothing`);
      assert.equal(missing.json().error_code, 'ERR_DOES_NOT_EXIST');
      const outside = await s().send('GET', '/data/path/elsewhere/x?limit=1', 'alice');
      assert.equal(outside.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
      const traversal = await s().send(
        'GET',
        `/data/path/${zone}/home/alice/..%2F..%2Fbob?limit=1`,
        'alice',
      );
      assert.equal(traversal.json().error_code, 'ERR_BAD_OR_MISSING_FIELD');
    });

    test("visibility: pass-through folders list only what leads to grants; others' data is not readable", async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const sharedWithMe = await list('alice', `/${zone}/home`);
      assert.equal(sharedWithMe.status, 200, sharedWithMe.text);
      assert.equal(sharedWithMe.json().permission, 'read');
      assert.deepEqual(
        sharedWithMe.json().folders.map((entry: any) => [entry.path, entry.permission]),
        [
          [a, 'own'],
          [b, 'read'],
          [`/${zone}/home/shared`, 'read'],
        ],
      );
      assert.equal(sharedWithMe.json().total, 3);

      const bobsHome = await list('alice', b);
      assert.equal(bobsHome.status, 200, bobsHome.text);
      assert.equal(bobsHome.json().permission, 'read');
      assert.deepEqual(
        bobsHome.json().folders.map((entry: any) => entry.name),
        ['projects'],
      );
      assert.equal(bobsHome.json().total, 1, 'the total counts only what alice may see');
      const projects = await list('alice', `${b}/projects`);
      assert.deepEqual(
        [...projects.json().folders, ...projects.json().files].map((entry: any) => entry.name),
        ['shared-here'],
      );
      const sharedFolder = await list('alice', `${b}/projects/shared-here`);
      assert.deepEqual(
        sharedFolder.json().files.map((entry: any) => [entry.name, entry.permission]),
        [['result.csv', 'read']],
      );
      const shared = await s().send(
        'GET',
        dataPath(`${b}/projects/shared-here/result.csv`),
        'alice',
      );
      assert.equal(shared.status, 200);
      assert.equal(shared.text, 'x,y\n1,2\n');

      for (const path of [`${b}/private`, `${b}/projects/other.txt`, `${b}/private/secret.txt`]) {
        const refused = await list('alice', path);
        assert.equal(refused.status, 403, path);
        assert.equal(refused.json().error_code, 'ERR_NOT_READABLE', path);
        assert.equal(refused.json().path, path);
      }
      const bobSees = await list('bob', `/${zone}/home`);
      assert.deepEqual(
        bobSees.json().folders.map((entry: any) => entry.path),
        [b, `/${zone}/home/shared`],
        "bob sees no trace of alice's home",
      );

      // Another user's trash is never shown, even with a grant inside it.
      await mkdir('bob', `/${zone}/trash/home/bob/old`);
      await s().grant(`/${zone}/trash/home/bob/old`, 'alice', 'read');
      const trashHome = await list('alice', `/${zone}/trash/home`);
      assert.deepEqual(
        trashHome.json().folders.map((entry: any) => entry.path),
        [`/${zone}/trash/home/alice`],
      );
      const bobsTrash = await list('alice', `/${zone}/trash/home/bob/old`);
      assert.equal(bobsTrash.json().error_code, 'ERR_NOT_READABLE');

      // Community data: a public grant is everyone's, the anonymous caller included.
      await s().grant(`${b}/projects/other.txt`, 'public', 'read');
      const publicFile = await s().send('GET', dataPath(`${b}/projects/other.txt`), 'anonymous');
      assert.equal(publicFile.status, 200, publicFile.text);
      assert.equal(publicFile.text, 'other');
      const anonymousHome = await list('anonymous', `/${zone}/home`);
      assert.deepEqual(
        anonymousHome.json().folders.map((entry: any) => entry.path),
        [b, `/${zone}/home/shared`],
      );
    });

    test('downloads: type, disposition, ranges, empty files', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const name = 'résumé "final" (1).txt';
      const content = '0123456789abcdefghij';
      await put('alice', `${a}/docs/${name}`, content);
      const url = dataPath(`${a}/docs/${name}`);
      const whole = await s().send('GET', url, 'alice');
      assert.equal(whole.status, 200);
      assert.equal(whole.text, content);
      assert.equal(whole.headers['content-type'], 'text/plain');
      assert.equal(whole.headers['content-length'], '20');
      assert.equal(whole.headers['accept-ranges'], 'bytes');
      assert.equal(
        whole.headers['content-disposition'],
        `inline; filename="r_sum_ _final_ (1).txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%20%22final%22%20%281%29.txt`,
      );
      const attachment = await s().send('GET', `${url}?attachment=1`, 'alice');
      assert.match(String(attachment.headers['content-disposition']), /^attachment; /);
      assert.match(
        String(
          (await s().send('GET', `${url}?attachment=true`, 'alice')).headers['content-disposition'],
        ),
        /^attachment; /,
      );

      const range = await s().send('GET', url, 'alice', { headers: { range: 'bytes=5-9' } });
      assert.equal(range.status, 206);
      assert.equal(range.text, '56789');
      assert.equal(range.headers['content-range'], 'bytes 5-9/20');
      assert.equal(range.headers['content-length'], '5');
      const suffix = await s().send('GET', url, 'alice', { headers: { range: 'bytes=-3' } });
      assert.equal(suffix.text, 'hij');
      const unsatisfiable = await s().send('GET', url, 'alice', {
        headers: { range: 'bytes=20-' },
      });
      assert.equal(unsatisfiable.status, 416);
      assert.equal(unsatisfiable.headers['content-range'], 'bytes */20');
      assert.equal(unsatisfiable.json().error_code, 'ERR_RANGE_NOT_SATISFIABLE');
      assert.equal(
        unsatisfiable.headers['content-disposition'],
        undefined,
        'an error is not dressed as the file',
      );

      await put('alice', `${a}/docs/empty.bin`, '');
      const empty = await s().send('GET', dataPath(`${a}/docs/empty.bin`), 'alice', {
        headers: { range: 'bytes=0-' },
      });
      assert.equal(empty.status, 200);
      assert.equal(empty.bytes.length, 0);
      assert.equal(empty.headers['content-length'], '0');

      const binary = Buffer.from([0, 1, 2, 255, 254, 0]);
      await put('alice', `${a}/docs/blob`, binary);
      const binaryAnswer = await s().send('GET', dataPath(`${a}/docs/blob`), 'alice');
      assert.deepEqual(binaryAnswer.bytes, binary);
      assert.equal(binaryAnswer.headers['content-type'], 'application/octet-stream');
      await put('alice', `${a}/docs/notes`, 'plain words');
      assert.equal(
        (await s().send('GET', dataPath(`${a}/docs/notes`), 'alice')).headers['content-type'],
        'text/plain',
        'a nameless type is sniffed',
      );

      const badFlag = await s().send('GET', `${url}?attachment=maybe`, 'alice');
      assert.equal(badFlag.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
    });

    test('ids: uuid of a path, HEAD by id', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = await put('alice', `${a}/docs/id.txt`, 'id');
      const uuid = await s().send('GET', `/data/uuid?path=${enc(`${a}/docs/id.txt`)}`, 'alice');
      assert.deepEqual(uuid.json(), { id: file.id });
      assert.equal(
        (await s().send('GET', `/data/uuid?path=${enc(`${a}/docs/id.txt`)}`, 'bob')).json()
          .error_code,
        'ERR_NOT_READABLE',
      );
      assert.equal(
        (await s().send('GET', '/data/uuid', 'alice')).json().error_code,
        'ERR_MISSING_QUERY_PARAMETER',
      );

      assert.equal((await s().send('HEAD', `/data/${file.id}`, 'alice')).status, 200);
      assert.equal((await s().send('HEAD', `/data/${file.id.toUpperCase()}`, 'alice')).status, 200);
      assert.equal((await s().send('HEAD', `/data/${file.id}`, 'bob')).status, 403);
      assert.equal(
        (await s().send('HEAD', '/data/00000000-0000-4000-8000-000000000000', 'alice')).status,
        404,
      );
      assert.equal((await s().send('HEAD', '/data/not-a-uuid', 'alice')).status, 404);
      assert.equal((await s().send('HEAD', `/data/${file.id}`, 'public')).status, 422);
    });

    test('chunks, tabular chunks, manifest, info types', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const text = 'héllo world';
      const file = await put('alice', `${a}/docs/chunk.txt`, text);
      const chunk = await s().send('GET', `/data/${file.id}/chunks?position=1&size=5`, 'alice');
      assert.equal(chunk.status, 200, chunk.text);
      assert.deepEqual(chunk.json(), {
        path: `${a}/docs/chunk.txt`,
        user: 'alice',
        start: '1',
        'chunk-size': '5',
        'file-size': String(Buffer.byteLength(text)),
        chunk: 'éllo',
      });
      const past = await s().send('GET', `/data/${file.id}/chunks?position=100&size=5`, 'alice');
      assert.equal(past.json().chunk, '');
      assert.equal(
        (await s().send('GET', `/data/${file.id}/chunks?position=0`, 'alice')).json().error_code,
        'ERR_MISSING_QUERY_PARAMETER',
      );
      assert.equal(
        (await s().send('GET', `/data/${file.id}/chunks?position=a&size=1`, 'alice')).json()
          .error_code,
        'ERR_BAD_QUERY_PARAMETER',
      );
      assert.equal(
        (await s().send('GET', `/data/${file.id}/chunks?size=1`, 'bob')).json().error_code,
        'ERR_NOT_READABLE',
      );
      const folder = await s().object(`${a}/docs`);
      assert.equal(
        (await s().send('GET', `/data/${folder!.id}/chunks?size=1`, 'alice')).json().error_code,
        'ERR_NOT_A_FILE',
      );

      // 10 rows of 10 bytes; pages of 25 bytes hold the rows that start in them.
      const rows = Array.from({ length: 10 }, (_, index) => `r${index}\tv${index}\t"q"\n`);
      assert.equal(rows[0]!.length, 10);
      const tsv = await put('alice', `${a}/docs/table.tsv`, rows.join(''));
      const pages: string[][] = [];
      for (let page = 1; page <= 4; page++) {
        const answer = await s().send(
          'GET',
          `/data/${tsv.id}/chunks-tabular?separator=%2509&page=${page}&size=25`,
          'alice',
        );
        assert.equal(answer.status, 200, answer.text);
        const body = answer.json();
        assert.equal(body['number-pages'], '4');
        assert.equal(body['file-size'], '100');
        assert.equal(body.page, String(page));
        pages.push(body.csv.map((row: any) => row['0']));
        if (page === 1) {
          assert.equal(body['max-cols'], '3');
          assert.deepEqual(body.csv[0], { '0': 'r0', '1': 'v0', '2': 'q' });
          assert.equal(body['chunk-size'], '30');
        }
      }
      assert.deepEqual(
        pages.flat(),
        rows.map((_, index) => `r${index}`),
        'every row exactly once over the pages',
      );
      const tab = await s().send(
        'GET',
        `/data/${tsv.id}/chunks-tabular?separator=${enc('\t')}&page=1&size=1000`,
        'alice',
      );
      assert.equal(tab.json().csv.length, 10, 'a separator decoded once works too');
      const beyond = await s().send(
        'GET',
        `/data/${tsv.id}/chunks-tabular?page=9&size=25`,
        'alice',
      );
      assert.equal(beyond.json().error_code, 'ERR_BAD_QUERY_PARAMETER');
      const csvFile = await put('alice', `${a}/docs/quoted.csv`, 'a,"b,c"\n"multi\nline",d\n');
      const quoted = await s().send(
        'GET',
        `/data/${csvFile.id}/chunks-tabular?page=1&size=100`,
        'alice',
      );
      assert.deepEqual(quoted.json().csv, [
        { '0': 'a', '1': 'b,c' },
        { '0': 'multi\nline', '1': 'd' },
      ]);

      const manifest = await s().send('GET', `/data/${tsv.id}/manifest`, 'alice');
      assert.deepEqual(manifest.json(), {
        'content-type': 'text/tab-separated-values',
        infoType: 'tsv',
        urls: [],
      });

      const types = await s().send('GET', '/file-types');
      assert.ok(types.json().types.includes('fastq'));
      const setType = await s().send('PUT', `/data/${file.id}/type`, 'alice', {
        json: { type: 'fasta' },
      });
      assert.deepEqual(setType.json(), {
        type: 'fasta',
        user: 'alice',
        path: `${a}/docs/chunk.txt`,
      });
      assert.equal((await s().object(`${a}/docs/chunk.txt`))?.info_type, 'fasta');
      assert.equal(
        (
          await s().send('PUT', `/data/${file.id}/type`, 'alice', { json: { type: 'nonsense' } })
        ).json().error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      assert.equal(
        (await s().send('PUT', `/data/${file.id}/type`, 'bob', { json: { type: 'csv' } })).json()
          .error_code,
        'ERR_NOT_WRITEABLE',
      );
      assert.equal(
        (await s().send('PUT', `/data/${file.id}/type`, 'alice', { json: {} })).json().error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );
    });

    test('bulk stats: stat-gatherer, path-info, stat-lister, existence and creatability', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const file = await put('alice', `${a}/docs/stat.csv`, 'a,b\n');
      const docs = (await s().object(`${a}/docs`))!;
      const stats = await s().send('POST', '/stat-gatherer', 'alice', {
        json: { paths: [`${a}/docs/stat.csv`, `${a}/docs/`], ids: [docs.id] },
      });
      assert.equal(stats.status, 200, stats.text);
      const fileStat = stats.json().paths[`${a}/docs/stat.csv`];
      assert.equal(fileStat.type, 'file');
      assert.equal(fileStat['file-size'], 4);
      assert.equal(fileStat.md5, createHash('md5').update('a,b\n').digest('hex'));
      assert.equal(fileStat['content-type'], 'text/csv');
      assert.equal(fileStat.infoType, 'csv');
      assert.equal(fileStat.permission, 'own');
      assert.equal(fileStat['share-count'], 0);
      assert.equal(stats.json().paths[`${a}/docs/`].type, 'dir', 'keyed by the path as sent');
      assert.equal(stats.json().ids[docs.id].path, `${a}/docs`);

      const missing = await s().send('POST', '/stat-gatherer', 'alice', {
        json: { paths: [`${a}/nope`] },
      });
      assert.equal(missing.json().error_code, 'ERR_DOES_NOT_EXIST');
      const notMine = await s().send('POST', '/stat-gatherer', 'bob', {
        json: { paths: [`${a}/docs`] },
      });
      assert.equal(notMine.json().error_code, 'ERR_NOT_READABLE');
      const sharedStat = await s().send(
        'POST',
        '/stat-gatherer?validation-behavior=write',
        'alice',
        { json: { paths: [`${b}/projects/shared-here/result.csv`] } },
      );
      assert.equal(sharedStat.json().error_code, 'ERR_NOT_WRITEABLE');
      const sharedRead = await s().send('POST', '/stat-gatherer', 'alice', {
        json: { paths: [`${b}/projects/shared-here/result.csv`] },
      });
      assert.equal(
        sharedRead.json().paths[`${b}/projects/shared-here/result.csv`].permission,
        'read',
      );
      assert.equal(
        sharedRead.json().paths[`${b}/projects/shared-here/result.csv`]['share-count'],
        undefined,
        'share-count only for owners',
      );

      const info = await s().send(
        'POST',
        '/path-info?filter-include=id,path,file-size&ignore-missing=true&ignore-inaccessible=1',
        'alice',
        {
          json: { paths: [`${a}/docs/stat.csv`, `${a}/nope`, `${b}/private`] },
        },
      );
      assert.deepEqual(info.json(), {
        paths: {
          [`${a}/docs/stat.csv`]: { id: file.id, path: `${a}/docs/stat.csv`, 'file-size': 4 },
        },
        ids: {},
      });
      const excluded = await s().send(
        'POST',
        '/path-info?filter-exclude=md5,share-count',
        'alice',
        { json: { paths: [`${a}/docs/stat.csv`] } },
      );
      assert.equal(excluded.json().paths[`${a}/docs/stat.csv`].md5, undefined);
      assert.equal(excluded.json().paths[`${a}/docs/stat.csv`].id, file.id);
      assert.equal(
        (
          await s().send('POST', '/path-info?filter-include=owner', 'alice', {
            json: { paths: [a] },
          })
        ).json().error_code,
        'ERR_BAD_QUERY_PARAMETER',
      );

      const tooMany = await s().send('POST', '/stat-gatherer', 'alice', {
        json: { paths: Array.from({ length: 1001 }, (_, i) => `${a}/${i}`) },
      });
      assert.equal(tooMany.json().error_code, 'ERR_TOO_MANY_RESULTS');
      assert.equal(tooMany.json().count, 1001);
      assert.equal(tooMany.json().limit, 1000);
      assert.equal(
        (await s().send('POST', '/stat-gatherer', 'alice', { json: { paths: 'x' } })).json()
          .error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      assert.equal(
        (await s().send('POST', '/stat-gatherer', 'alice', { json: { paths: [42] } })).json()
          .error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );
      assert.equal(
        (await s().send('POST', '/stat-gatherer', 'alice', { json: { ids: ['nope'] } })).json()
          .error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );

      // stat-lister: readable entries only, sorted and paged over the whole set.
      const bobSecret = (await s().object(`${b}/private/secret.txt`))!;
      const shared = (await s().object(`${b}/projects/shared-here/result.csv`))!;
      const ids = [
        file.id,
        docs.id,
        bobSecret.id,
        shared.id,
        '00000000-0000-4000-8000-000000000000',
      ];
      const listed = await s().send(
        'POST',
        '/stat-lister?sort-field=name&sort-dir=desc&limit=2&offset=0',
        'alice',
        { json: { ids } },
      );
      assert.equal(listed.status, 200, listed.text);
      assert.equal(listed.json().total, 3);
      assert.deepEqual(
        listed.json().folders.map((stat: any) => stat.path),
        [`${a}/docs`],
      );
      assert.deepEqual(
        listed.json().files.map((stat: any) => stat.path),
        [`${a}/docs/stat.csv`],
      );
      const second = await s().send(
        'POST',
        '/stat-lister?sort-field=name&sort-dir=desc&limit=2&offset=2',
        'alice',
        { json: { ids } },
      );
      assert.deepEqual(
        second.json().files.map((stat: any) => stat.path),
        [`${b}/projects/shared-here/result.csv`],
      );
      const typed = await s().send(
        'POST',
        '/stat-lister?info-type=csv&filter-include=id',
        'alice',
        { json: { ids: [file.id, shared.id] } },
      );
      assert.deepEqual(typed.json().files, [{ id: shared.id }, { id: file.id }]);

      const exists = await s().send('POST', '/existence-marker', 'alice', {
        json: { paths: [`${a}/docs`, `${a}/nope`, `${b}/private`, `${b}`, `/${zone}/home`] },
      });
      assert.deepEqual(exists.json().paths, {
        [`${a}/docs`]: true,
        [`${a}/nope`]: false,
        [`${b}/private`]: false,
        [b]: true,
        [`/${zone}/home`]: true,
      });
      assert.equal(
        (
          await s().send('POST', '/existence-marker', 'alice', {
            json: { paths: ['relative/path'] },
          })
        ).json().error_code,
        'ERR_BAD_OR_MISSING_FIELD',
      );

      const creatable = await s().send('POST', '/creatability-marker', 'alice', {
        json: {
          paths: [`${a}/new`, `${a}/new/deeper`, `${a}/docs`, `${b}/new`, `${a}/docs/stat.csv/x`],
        },
      });
      assert.deepEqual(creatable.json().paths, {
        [`${a}/new`]: true,
        [`${a}/new/deeper`]: true,
        [`${a}/docs`]: false,
        [`${b}/new`]: false,
        [`${a}/docs/stat.csv/x`]: false,
      });
    });

    test('directories: mkdir -p owned by the caller, write needed, clashes and bad names refused', async (t) => {
      if (!service) return t.skip('DATABASE_URL is not set (CI sets it)');
      const made = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: [`${a}/p/q/r`, `${a}/p/s`] },
      });
      assert.equal(made.status, 200, made.text);
      assert.deepEqual(made.json().paths, [`${a}/p`, `${a}/p/q`, `${a}/p/q/r`, `${a}/p/s`]);
      const folder = (await s().object(`${a}/p/q`))!;
      assert.equal(folder.owner, 'alice');
      assert.equal(folder.type, 'dir');
      assert.equal(await s().catalog.permission('alice', `${a}/p/q/r`), 'own');

      const again = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: [`${a}/p/q`] },
      });
      assert.equal(again.status, 409);
      assert.equal(again.json().error_code, 'ERR_EXISTS');
      assert.equal(again.json().path, `${a}/p/q`);
      const partly = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: [`${a}/p/q`, `${a}/p/t`] },
      });
      assert.deepEqual(
        partly.json().paths,
        [`${a}/p/t`],
        'existing ones are skipped when others are new',
      );

      for (const bad of [`${a}/it's`, `${a}/back\`tick`, `${a}/x/../y`, 'relative']) {
        const answer = await s().send('POST', '/data/directories', 'alice', {
          json: { paths: [bad] },
        });
        assert.equal(answer.status, 400, bad);
        assert.equal(answer.json().error_code, 'ERR_BAD_OR_MISSING_FIELD', bad);
      }
      const notMine = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: [`${b}/intrusion`] },
      });
      assert.equal(notMine.json().error_code, 'ERR_NOT_WRITEABLE');
      assert.equal(await s().object(`${b}/intrusion`), undefined);
      const underFile = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: [`${a}/docs/id.txt/sub`] },
      });
      assert.equal(underFile.json().error_code, 'ERR_NOT_A_FOLDER');
      const anonymous = await s().send('POST', '/data/directories', 'anonymous', {
        json: { paths: [`${a}/anon`] },
      });
      assert.equal(anonymous.json().error_code, 'ERR_NOT_A_USER');
      const tooMany = await s().send('POST', '/data/directories', 'alice', {
        json: { paths: Array.from({ length: 1001 }, (_, i) => `${a}/m${i}`) },
      });
      assert.equal(tooMany.json().error_code, 'ERR_TOO_MANY_RESULTS');
    });
  });
}
