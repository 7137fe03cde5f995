// Instant launches through the gateway on each engine, kept by the embedded analyses service
// standing in for the interactive-apps service: administrators add, change and delete them and
// their AVUs; users list those whose quick launch they may view, and add, change and delete their
// own only; the navigation drawer's list (`/instantlaunches/metadata/full`) answers anonymous
// callers too; the default mappings of file patterns are set, read, replaced and deleted (an empty
// mapping when none); what the web UI sends and reads of them (the test "what the web UI sends and
// reads" names its files and fields); and a data file opened with the instant launch its pattern
// maps to starts the quick launch with the file as input, the way the web UI does it, and the
// analysis completes.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { builtInApps } from '../../../src/backends/apps/catalog/built-in.ts';
import { eventually } from '../../support/fileio.ts';
import { engines, skipWithout } from '../../support/postgres.ts';
import {
  admin,
  startMetadataGateway,
  type MetadataGateway,
} from '../../support/metadata-gateway.ts';

const wordCount = builtInApps.find((app) => app.name === 'Word count')!;

/** The web UI's matching of a file name against a mapping's glob pattern (`*` and `?`). */
const globMatches = (pattern: string, name: string) =>
  new RegExp(
    `^${pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*/g, '.*')
      .replace(/\?/g, '.')}$`,
  ).test(name);

for (const engine of engines) {
  describe(`instant launches (${engine})`, { skip: skipWithout(engine) }, () => {
    let gw: MetadataGateway;
    let domain: string;
    let quickLaunch: any; // root's public quick launch of Word count, input left open
    let instantLaunch: any; // the instant launch of it, added by root
    before(async () => {
      gw = (await startMetadataGateway({ engine }))!;
      domain = gw.running.gateway.config.uidDomain;
      await gw.ok('alice', 'GET', '/apps'); // the apps service has installed its apps
      quickLaunch = await gw.ok(admin, 'POST', '/quicklaunches', {
        json: {
          name: 'Count words',
          description: 'wc of the file you open',
          app_id: wordCount.id,
          is_public: true,
          submission: { system_id: 'de', app_id: wordCount.id, name: 'word count', config: {} },
        },
      });
    });
    after(async () => gw?.close());

    test('administrators add an instant launch; others are refused', async () => {
      const refused = await gw.call('alice', 'PUT', '/admin/instant-launches', {
        json: { quick_launch_id: quickLaunch.id },
      });
      assert.equal(refused.status, 403, refused.text);
      const unknown = await gw.call(admin, 'PUT', '/admin/instant-launches', {
        json: { quick_launch_id: '00000000-0000-4000-8000-000000000000' },
      });
      assert.equal(unknown.status, 404, unknown.text);
      assert.equal(unknown.body.error_code, 'ERR_NOT_FOUND');
      const badBody = await gw.call(admin, 'PUT', '/admin/instant-launches', { json: {} });
      assert.equal(badBody.status, 400, badBody.text);

      instantLaunch = await gw.ok(admin, 'PUT', '/admin/instant-launches', {
        json: { quick_launch_id: quickLaunch.id },
      });
      assert.match(instantLaunch.id, /^[0-9a-f-]{36}$/);
      assert.equal(instantLaunch.quick_launch_id, quickLaunch.id);
      assert.equal(instantLaunch.added_by, `${admin}@${domain}`);
      assert.ok(!Number.isNaN(Date.parse(instantLaunch.added_on)));
    });

    test('users list instant launches, plain and full; anonymous callers must sign in for those', async () => {
      assert.deepEqual(await gw.ok('bob', 'GET', '/instantlaunches'), {
        instant_launches: [instantLaunch],
      });
      const [full] = (await gw.ok('bob', 'GET', '/instantlaunches/full')).instant_launches;
      assert.deepEqual(
        {
          ...instantLaunch,
          quick_launch_name: 'Count words',
          app_id: wordCount.id,
          app_name: 'Word count',
        },
        {
          id: full.id,
          quick_launch_id: full.quick_launch_id,
          added_by: full.added_by,
          added_on: full.added_on,
          quick_launch_name: full.quick_launch_name,
          app_id: full.app_id,
          app_name: full.app_name,
        },
      );
      assert.deepEqual(full.submission, quickLaunch.submission);
      assert.deepEqual(
        await gw.ok('bob', 'GET', `/instantlaunches/${instantLaunch.id}/full`),
        full,
      );
      assert.deepEqual(
        await gw.ok('bob', 'GET', `/instantlaunches/${instantLaunch.id}`),
        instantLaunch,
      );
      assert.deepEqual(
        (await gw.ok('bob', 'GET', '/instantlaunches/quicklaunches/public')).map(
          (each: any) => each.id,
        ),
        [quickLaunch.id],
      );
      assert.equal((await gw.call(null, 'GET', '/instantlaunches')).status, 401);
      const missing = await gw.call(
        'bob',
        'GET',
        '/instantlaunches/00000000-0000-4000-8000-000000000000',
      );
      assert.equal(missing.status, 404, missing.text);
      assert.equal(missing.body.error_code, 'ERR_NOT_FOUND');
    });

    test('AVUs: the navigation drawer lists tagged instant launches to everyone, signed in or not', async () => {
      const drawer = '/instantlaunches/metadata/full?attribute=ui_location&value=nav_drawer&unit=';
      assert.deepEqual(await gw.ok(null, 'GET', drawer), { instant_launches: [] });
      const avus = [{ attribute: 'ui_location', value: 'nav_drawer', unit: '' }];
      const path = `/admin/instant-launches/${instantLaunch.id}/metadata`;
      assert.equal((await gw.call('alice', 'POST', path, { json: { avus } })).status, 403);
      const added = await gw.ok(admin, 'POST', path, { json: { avus } });
      // Adding again keeps one of each.
      const again = await gw.ok(admin, 'POST', path, {
        json: { avus: [...avus, { attribute: 'color', value: 'blue' }] },
      });
      assert.deepEqual(
        again.avus.map((avu: any) => [avu.attribute, avu.value, avu.unit]),
        [
          ['ui_location', 'nav_drawer', ''],
          ['color', 'blue', ''],
        ],
      );
      assert.equal(again.avus[0].id, added.avus[0].id);
      assert.deepEqual(await gw.ok(admin, 'GET', path), again);

      for (const user of [null, 'bob']) {
        const listed = (await gw.ok(user, 'GET', drawer)).instant_launches;
        assert.deepEqual(
          listed.map((each: any) => [each.id, each.app_name]),
          [[instantLaunch.id, 'Word count']],
        );
      }
      const byAttribute = await gw.ok(
        admin,
        'GET',
        '/admin/instant-launches/metadata?attribute=color',
      );
      assert.deepEqual(
        byAttribute.avus.map((avu: any) => [avu.target_id, avu.value]),
        [[instantLaunch.id, 'blue']],
      );
      // Reset: only what is sent stays.
      const reset = await gw.ok(admin, 'PUT', path, { json: { avus } });
      assert.deepEqual(
        reset.avus.map((avu: any) => avu.attribute),
        ['ui_location'],
      );
      const unknown = await gw.call(
        admin,
        'GET',
        '/admin/instant-launches/00000000-0000-4000-8000-000000000000/metadata',
      );
      assert.equal(unknown.status, 404, unknown.text);
    });

    test('default mappings: none (empty), set, read, replaced, refused when naming no instant launch, deleted', async () => {
      const latest = '/instantlaunches/mappings/defaults/latest';
      const adminLatest = '/admin/instant-launches/mappings/defaults/latest';
      const empty = { id: null, version: null, mapping: {} };
      assert.deepEqual(await gw.ok('alice', 'GET', latest), empty);

      // The first form, keyed by the glob with the kind `pattern`, is still taken; it is answered
      // as the web UI reads entries: kind `glob`, the key as its pattern, its instant launch whole.
      const txt = { kind: 'pattern', default: { id: instantLaunch.id }, compatible: [] };
      const txtAnswered = {
        kind: 'glob',
        pattern: '*.txt',
        default: instantLaunch,
        compatible: [],
      };
      assert.equal(
        (await gw.call('alice', 'PUT', adminLatest, { json: { '*.txt': txt } })).status,
        403,
      );
      const set = await gw.ok(admin, 'PUT', adminLatest, { json: { '*.txt': txt } });
      assert.deepEqual(
        { ...set, id: undefined },
        { id: undefined, version: '1', mapping: { '*.txt': txtAnswered } },
      );
      assert.deepEqual(await gw.ok('alice', 'GET', latest), set);

      const both = { '*.txt': txt, '*.csv': { ...txt, compatible: [{ id: instantLaunch.id }] } };
      const replaced = await gw.ok(admin, 'POST', adminLatest, { json: both });
      assert.deepEqual(replaced, {
        ...set,
        mapping: {
          '*.txt': txtAnswered,
          '*.csv': { ...txtAnswered, pattern: '*.csv', compatible: [instantLaunch] },
        },
      });
      const second = await gw.ok(admin, 'PUT', adminLatest, { json: { '*.md': txt } });
      assert.equal(second.version, '2');
      assert.deepEqual(await gw.ok('alice', 'GET', latest), second);

      const unknown = await gw.call(admin, 'PUT', adminLatest, {
        json: { '*.txt': { ...txt, default: { id: '00000000-0000-4000-8000-000000000000' } } },
      });
      assert.equal(unknown.status, 400, unknown.text);
      assert.equal(unknown.body.error_code, 'ERR_BAD_OR_MISSING_FIELD');
      assert.equal(unknown.body.field, 'default.id');
      assert.equal(unknown.body.mapping, '*.txt');
      const badKind = await gw.call(admin, 'PUT', adminLatest, {
        json: { '*.txt': { ...txt, kind: 'color' } },
      });
      assert.equal(badKind.status, 400, badKind.text);
      // The error names the field inside the entry, and the entry apart (its name holds a dot).
      assert.equal(badKind.body.field, 'kind');
      assert.equal(badKind.body.mapping, '*.txt');
      const noDefault = await gw.call(admin, 'PUT', adminLatest, {
        json: { '*.txt': { kind: 'glob', pattern: '*.txt' } },
      });
      assert.equal(noDefault.status, 400, noDefault.text);
      assert.equal(noDefault.body.field, 'default');

      // Deleting the latest puts the one before back in force; deleting the last leaves none.
      assert.deepEqual(await gw.ok(admin, 'DELETE', adminLatest), second);
      assert.deepEqual(await gw.ok('alice', 'GET', latest), replaced);
      await gw.ok(admin, 'DELETE', adminLatest);
      assert.deepEqual(await gw.ok('alice', 'GET', latest), empty);
      assert.equal((await gw.call(admin, 'DELETE', adminLatest)).status, 404);
    });

    test('what the web UI sends and reads', async () => {
      // Sonora's src/components/data/listing/Listing.js reads `mapping` of
      // `GET /instantlaunches/mappings/defaults/latest` on every data page (an error shows "Unable
      // to fetch default mappings."); serviceFacades/instantlaunches.js (`defaultInstantLaunch`,
      // `extractLaunchId`) matches a file by each entry's `kind` (`glob` or `infoType`) and
      // `pattern`, and launches its `default.quick_launch_id`. components/instantlaunches/admin/
      // InstantLaunchMapping.js, having read a mapping, POSTs (PUTs after a 404) to
      // `/admin/instant-launches/mappings/defaults/latest` the entries read plus
      // `{[name]: {pattern, kind, default: {id, quick_launch_id, added_on, added_by}, compatible: []}}`
      // and reads `mapping[name].{kind, pattern, default.quick_launch_id}`.
      // serviceFacades/instantlaunches.js POSTs `{avus: [{attr, value, unit}]}` to
      // `/admin/instant-launches/{id}/metadata`, reads `avus[].{attr, value}` of its GET, and PUTs
      // back the AVUs it read, filtered. components/instantlaunches/admin/InstantLaunchList.js,
      // useFirstClassInstantLaunch.js and listing/index.js read `instant_launches` of
      // `/admin/instant-launches/metadata/full` and `/instantlaunches/metadata/full`.
      const latest = '/instantlaunches/mappings/defaults/latest';
      const adminLatest = '/admin/instant-launches/mappings/defaults/latest';
      const fresh = await gw.ok('alice', 'GET', latest);
      assert.deepEqual(fresh.mapping, {});

      const [listed] = (await gw.ok(admin, 'GET', '/instantlaunches/full')).instant_launches;
      const sentLaunch = {
        id: listed.id,
        quick_launch_id: listed.quick_launch_id,
        added_on: listed.added_on,
        added_by: listed.added_by,
      };
      const textFiles = { pattern: '*.txt', kind: 'glob', default: sentLaunch, compatible: [] };
      const first = await gw.ok(admin, 'POST', adminLatest, {
        json: { ...fresh.mapping, 'Text files': textFiles },
      });
      assert.equal(first.version, '1');
      const read = await gw.ok('alice', 'GET', latest);
      assert.deepEqual(read.mapping['Text files'], textFiles);
      const plain = {
        pattern: 'PlainText',
        kind: 'infoType',
        default: sentLaunch,
        compatible: [],
      };
      const withInfoType = await gw.ok(admin, 'POST', adminLatest, {
        json: { ...read.mapping, 'Plain text': plain },
      });
      assert.equal(withInfoType.version, '1');
      assert.deepEqual(withInfoType.mapping, { 'Text files': textFiles, 'Plain text': plain });
      const created = await gw.ok(admin, 'PUT', adminLatest, { json: withInfoType.mapping });
      assert.equal(created.version, '2');
      for (const entry of Object.values<any>(created.mapping)) {
        assert.ok(['glob', 'infoType'].includes(entry.kind), entry.kind);
        assert.equal(typeof entry.pattern, 'string');
        assert.equal(entry.default.quick_launch_id, listed.quick_launch_id);
      }

      const metadata = `/admin/instant-launches/${listed.id}/metadata`;
      const dashboard = { attr: 'ui_location', value: 'dashboard', unit: '' };
      const added = await gw.ok(admin, 'POST', metadata, { json: { avus: [dashboard] } });
      assert.ok(
        added.avus.some((avu: any) => avu.attr === 'ui_location' && avu.value === 'dashboard'),
        JSON.stringify(added),
      );
      const full = await gw.ok(
        admin,
        'GET',
        '/admin/instant-launches/metadata/full?attribute=ui_location&value=dashboard&unit=',
      );
      assert.deepEqual(
        full.instant_launches.map((each: any) => each.id),
        [listed.id],
      );
      const { avus } = await gw.ok(admin, 'GET', metadata);
      const kept = avus.filter(
        ({ attr, value }: any) => attr !== 'ui_location' || value !== 'dashboard',
      );
      const reset = await gw.ok(admin, 'PUT', metadata, { json: { avus: kept } });
      assert.deepEqual(
        reset.avus.map((avu: any) => [avu.attr, avu.value]),
        kept.map((avu: any) => [avu.attr, avu.value]),
      );
      const none = await gw.call(admin, 'POST', metadata, { json: { avus: [{ value: 'x' }] } });
      assert.equal(none.status, 400, none.text);
      assert.equal(none.body.field, 'avus.0.attr');

      await gw.ok(admin, 'DELETE', adminLatest);
      await gw.ok(admin, 'DELETE', adminLatest);
    });

    test('a file opened with the instant launch its pattern maps to runs the quick launch on it', async () => {
      await gw.ok(admin, 'PUT', '/admin/instant-launches/mappings/defaults/latest', {
        json: {
          '*.txt': { kind: 'pattern', default: { id: instantLaunch.id }, compatible: [] },
        },
      });
      const file = (await gw.upload('bob', gw.home('bob'), 'notes.txt', 'one two three four\n'))
        .path as string;

      // What the web UI does: find the file's glob entry, then its instant launch's quick launch,
      // put the file in the launch form's first file input and submit the analysis.
      const { mapping } = await gw.ok('bob', 'GET', '/instantlaunches/mappings/defaults/latest');
      const entry = Object.values<any>(mapping).find(
        (each) => each.kind === 'glob' && globMatches(each.pattern, 'notes.txt'),
      );
      const quickLaunchId = entry.default.quick_launch_id;
      const ql = await gw.ok('bob', 'GET', `/quicklaunches/${quickLaunchId}`);
      const form = await gw.ok('bob', 'GET', `/quicklaunches/${quickLaunchId}/app-info`);
      const input = form.groups
        .flatMap((group: any) => group.parameters)
        .find((parameter: any) => parameter.type === 'FileInput');
      const launched = await gw.ok('bob', 'POST', '/analyses', {
        json: {
          ...ql.submission,
          output_dir: gw.home('bob'),
          config: { ...ql.submission.config, [input.id]: file },
        },
      });
      const filter = encodeURIComponent(JSON.stringify([{ field: 'id', value: launched.id }]));
      const done = await eventually(
        async () => {
          const [row] = (await gw.ok('bob', 'GET', `/analyses?filter=${filter}`)).analyses;
          return ['Completed', 'Failed', 'Canceled'].includes(row?.status) ? row : undefined;
        },
        10_000,
        'the instant launch to end',
      );
      assert.equal(done.status, 'Completed');
      assert.deepEqual(
        (await gw.ok('bob', 'GET', `/analyses/${launched.id}/parameters`)).parameters
          .filter((each: any) => each.param_type === 'FileInput')
          .map((each: any) => each.param_value.value),
        [file],
      );
    });

    test('users add instant launches of quick launches they may view, and change or delete only their own', async () => {
      const privateLaunch = await gw.ok('alice', 'POST', '/quicklaunches', {
        json: {
          name: 'alice counts',
          app_id: wordCount.id,
          is_public: false,
          submission: { system_id: 'de', app_id: wordCount.id, name: 'mine', config: {} },
        },
      });
      const refused = await gw.call('bob', 'PUT', '/instantlaunches', {
        json: { quick_launch_id: privateLaunch.id },
      });
      assert.equal(refused.status, 404, refused.text);
      const own = await gw.ok('alice', 'PUT', '/instantlaunches', {
        json: { quick_launch_id: privateLaunch.id },
      });
      assert.equal(own.added_by, `alice@${domain}`);
      const ids = async (user: string) =>
        (await gw.ok(user, 'GET', '/instantlaunches')).instant_launches.map((each: any) => each.id);
      assert.deepEqual(await ids('alice'), [instantLaunch.id, own.id]);
      assert.deepEqual(await ids('bob'), [instantLaunch.id]);

      // Administrators' metadata listing covers every tagged instant launch; a user's, the visible ones.
      await gw.ok(admin, 'POST', `/admin/instant-launches/${own.id}/metadata`, {
        json: { avus: [{ attribute: 'ui_location', value: 'nav_drawer' }] },
      });
      const fullIds = async (user: string, route: string) =>
        (await gw.ok(user, 'GET', route)).instant_launches.map((each: any) => each.id);
      assert.deepEqual(
        await fullIds(admin, '/admin/instant-launches/metadata/full?attribute=ui_location'),
        [instantLaunch.id, own.id],
      );
      assert.deepEqual(
        await fullIds('bob', '/instantlaunches/metadata/full?attribute=ui_location'),
        [instantLaunch.id],
      );

      assert.equal((await gw.call('bob', 'DELETE', `/instantlaunches/${own.id}`)).status, 404);
      const notOwner = await gw.call('alice', 'DELETE', `/instantlaunches/${instantLaunch.id}`);
      assert.equal(notOwner.status, 403, notOwner.text);
      assert.equal(notOwner.body.error_code, 'ERR_NOT_OWNER');
      const moved = await gw.ok('alice', 'POST', `/instantlaunches/${own.id}`, {
        json: { quick_launch_id: quickLaunch.id },
      });
      assert.equal(moved.quick_launch_id, quickLaunch.id);
      assert.deepEqual(await gw.ok('alice', 'DELETE', `/instantlaunches/${own.id}`), {
        id: own.id,
      });
      assert.deepEqual(await ids('alice'), [instantLaunch.id]);
    });

    test('administrators change and delete any instant launch; a deleted quick launch takes its own', async () => {
      const other = await gw.ok(admin, 'POST', '/quicklaunches', {
        json: {
          name: 'Count again',
          app_id: wordCount.id,
          is_public: true,
          submission: { system_id: 'de', app_id: wordCount.id, name: 'again', config: {} },
        },
      });
      const added = await gw.ok('bob', 'PUT', '/instantlaunches', {
        json: { quick_launch_id: other.id },
      });
      const changed = await gw.ok(admin, 'POST', `/admin/instant-launches/${added.id}`, {
        json: { quick_launch_id: quickLaunch.id },
      });
      assert.equal(changed.quick_launch_id, quickLaunch.id);
      assert.equal(changed.added_by, `bob@${domain}`);
      assert.deepEqual(await gw.ok(admin, 'DELETE', `/admin/instant-launches/${added.id}`), {
        id: added.id,
      });
      assert.equal((await gw.call('bob', 'GET', `/instantlaunches/${added.id}`)).status, 404);

      const doomed = await gw.ok(admin, 'PUT', '/admin/instant-launches', {
        json: { quick_launch_id: other.id },
      });
      await gw.ok(admin, 'DELETE', `/quicklaunches/${other.id}`);
      assert.equal((await gw.call(admin, 'GET', `/instantlaunches/${doomed.id}`)).status, 404);
    });
  });
}
