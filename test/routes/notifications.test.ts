// Notifications through the gateway (spec "Notification", "States and transitions", "Notifications",
// "Events", "Limits" 4; routes.md §7): real HTTP, real tokens, the embedded notification agent and
// user-info service, a stand-in apps service for the app descriptions, on both database engines.
// Every expected listing and count is computed here from what the test recorded and changed.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { startBackend, type RecordedRequest, type TestBackend } from '../support/backend.ts';
import { admin, startMetadataGateway, type MetadataGateway } from '../support/metadata-gateway.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
/** The type as the agent stores and filters it: lower case, `_` for spaces. */
const stored = (type: string) => type.trim().toLowerCase().replace(/ /g, '_');
const countKeys = ['system-total', 'system-total-new', 'system-total-unseen', 'user-total'];

/** `?a=1&b=2` in the given order, values percent-encoded; undefined values left out. */
function qs(params: [string, string | number | undefined][]): string {
  const parts = params
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${name}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** One notification as the test knows it: the agent's answer when it was sent, kept up to date. */
interface Note {
  id: string;
  user: string;
  stored: string;
  timestamp: number;
  seen: boolean;
  deleted: boolean;
  json: Record<string, any>;
}

/** How a note is listed: as recorded, with its current seen flag (deleted ones are never listed). */
const listed = (note: Note): Record<string, any> => ({
  ...note.json,
  seen: note.seen,
  deleted: false,
});

interface ListingOptions {
  seen?: boolean;
  filter?: string;
  sortDir?: string;
  limit?: number;
  offset?: number;
}

/** What GET /secured/notifications/messages should answer: filter, seen, sort by time then id, page. */
function expectedListing(notes: Note[], user: string, options: ListingOptions = {}) {
  const filter = options.filter === undefined ? undefined : stored(options.filter);
  const seen = filter === 'new' ? false : options.seen;
  const type = filter === 'new' ? undefined : filter;
  const live = notes.filter(
    (note) => note.user === user && !note.deleted && (type === undefined || note.stored === type),
  );
  const matching = live.filter((note) => seen === undefined || note.seen === seen);
  const sorted = [...matching].sort((a, b) => a.timestamp - b.timestamp || byString(a.id, b.id));
  if ((options.sortDir ?? 'desc').toLowerCase() === 'desc') sorted.reverse();
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 0;
  const page = limit === 0 ? sorted.slice(offset) : sorted.slice(offset, offset + limit);
  return {
    messages: page.map(listed),
    total: matching.length,
    unseen_total: live.filter((note) => !note.seen).length,
  };
}

/** A user's live unseen notifications, oldest first (unseen-messages). */
const unseenOf = (notes: Note[], user: string) =>
  expectedListing(notes, user, { seen: false, sortDir: 'asc' }).messages;
const unseenCount = (notes: Note[], user: string) => unseenOf(notes, user).length;

/** A system message as the test knows it, and each user's state of it (0 none, 1 received, 2 seen, 3 dismissed). */
interface SystemMessage {
  uuid: string;
  json: Record<string, any>;
}

class SystemModel {
  readonly messages: SystemMessage[] = [];
  private readonly states = new Map<string, number>();

  state(user: string, id: string): number {
    return this.states.get(`${user}\n${id}`) ?? 0;
  }

  private isActive(message: SystemMessage, at = Date.now()) {
    return message.json.activation_date <= at && message.json.deactivation_date > at;
  }

  active(): SystemMessage[] {
    return this.messages.filter((message) => this.isActive(message));
  }

  /** Raises (never lowers) the state of some messages, or of every active one; dismissals only of dismissible ones. */
  raise(user: string, ids: string[] | 'active', state: number) {
    const targets =
      ids === 'active'
        ? this.active()
        : this.messages.filter((message) => ids.includes(message.uuid));
    for (const message of targets) {
      if (state === 3 && !message.json.dismissible) continue;
      if (this.state(user, message.uuid) < state)
        this.states.set(`${user}\n${message.uuid}`, state);
    }
  }

  /** An updated message is news again for everyone. */
  reset(id: string) {
    for (const key of [...this.states.keys()]) if (key.endsWith(`\n${id}`)) this.states.delete(key);
  }

  remove(id: string) {
    this.messages.splice(
      this.messages.findIndex((message) => message.uuid === id),
      1,
    );
    this.reset(id);
  }

  /** Active messages whose state is below `below`, as the user listings give them (newest activation first, then id). */
  listing(user: string, below: number) {
    return this.active()
      .filter((message) => this.state(user, message.uuid) < below)
      .sort((a, b) => b.json.activation_date - a.json.activation_date || byString(a.uuid, b.uuid))
      .map((message) => ({ ...message.json, acknowledged: this.state(user, message.uuid) >= 2 }));
  }

  counts(user: string) {
    return {
      'system-total': this.listing(user, 3).length,
      'system-total-new': this.listing(user, 1).length,
      'system-total-unseen': this.listing(user, 2).length,
    };
  }
}

/** The stand-in apps service: GET /analyses answers the analyses of its table named in `filter`. */
interface AppsService {
  backend: TestBackend;
  descriptions: Map<string, string>;
  failing: boolean;
  /** The analysis ids each /analyses call asked for, from `since` on. */
  asked(since: number): string[][];
}

async function startAppsService(): Promise<AppsService> {
  const service: AppsService = {
    backend: undefined as unknown as TestBackend,
    descriptions: new Map(),
    failing: false,
    asked: (since) =>
      service.backend.requests
        .slice(since)
        .filter((request) => request.path === '/analyses')
        .map(filterIds),
  };
  service.backend = await startBackend((request, response) => {
    if (request.path !== '/analyses' || request.method !== 'GET') {
      response.writeHead(404, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ error_code: 'ERR_NOT_FOUND' }));
      return;
    }
    if (service.failing) {
      response.writeHead(500, { 'content-type': 'application/json' });
      response.end(
        JSON.stringify({
          error_code: 'ERR_UNCHECKED_EXCEPTION',
          reason: 'the apps service is having a bad day',
        }),
      );
      return;
    }
    const analyses = filterIds(request)
      .filter((id) => service.descriptions.has(id))
      .map((id) => ({ id, name: `analysis ${id}`, app_description: service.descriptions.get(id) }));
    response.writeHead(200, { 'content-type': 'application/json' });
    response.end(
      JSON.stringify({ analyses, timestamp: new Date().toISOString(), total: analyses.length }),
    );
  });
  return service;
}

/** The ids of the `filter` of a GET /analyses call (`[{"field":"id","value":...}, ...]`). */
function filterIds(request: RecordedRequest): string[] {
  const filter = JSON.parse(request.query.get('filter') ?? '[]') as {
    field: string;
    value: string;
  }[];
  return filter.filter((clause) => clause.field === 'id').map((clause) => clause.value);
}

for (const engine of ['sqlite', 'postgres'] as const) {
  describe(`notifications through the gateway (${engine})`, () => {
    let g: MetadataGateway | undefined;
    let apps: AppsService;
    const notes: Note[] = [];
    const system = new SystemModel();

    /** Sends a notification through POST /send-notification (loopback, no token) and records it. */
    const send = async (gateway: MetadataGateway, body: Record<string, unknown>): Promise<Note> => {
      const answer = await gateway.call(null, 'POST', '/send-notification', { json: body });
      assert.equal(answer.status, 200, answer.text);
      const json = answer.body.notification;
      const note: Note = {
        id: json.message.id,
        user: json.user,
        stored: stored(String(body.type)),
        timestamp: Number(json.message.timestamp),
        seen: false,
        deleted: false,
        json,
      };
      if (gateway === g) notes.push(note);
      return note;
    };
    /** Seeds `count` notifications for `user` of the given types, waiting a little now and then (some times tie, most differ). */
    const seed = async (
      user: string,
      types: string[],
      count: number,
      extra: (index: number) => Record<string, unknown> = () => ({}),
    ) => {
      const seeded: Note[] = [];
      for (let index = 0; index < count; index++) {
        const type = types[index % types.length]!;
        seeded.push(
          await send(g!, {
            type,
            user,
            subject: `${type} note ${index} for ${user}`,
            ...extra(index),
          }),
        );
        if (index % 3 === 2) await sleep(3);
      }
      return seeded;
    };
    const messages = (user: string, query = '') =>
      g!.ok(user, 'GET', `/secured/notifications/messages${query}`);
    const counts = (user: string, query = '') =>
      g!.ok(user, 'GET', `/secured/notifications/count-messages${query}`);
    /** Checks count-messages (four integer keys, nothing else) against the model. */
    const checkCounts = async (user: string, options: { seen?: boolean; filter?: string } = {}) => {
      const answer = await counts(
        user,
        qs([
          ['seen', options.seen === undefined ? undefined : String(options.seen)],
          ['filter', options.filter],
        ]),
      );
      assert.deepEqual(Object.keys(answer).sort(), countKeys, JSON.stringify(answer));
      for (const key of countKeys)
        assert.ok(Number.isInteger(answer[key]), `${key}: ${JSON.stringify(answer)}`);
      assert.deepEqual(
        answer,
        { 'user-total': expectedListing(notes, user, options).total, ...system.counts(user) },
        `${user} ${JSON.stringify(options)}`,
      );
    };
    /** Every view of a user's notifications against the model: listing, unseen, counts. */
    const checkUser = async (user: string) => {
      const all = await messages(user, '?limit=0');
      const expected = expectedListing(notes, user);
      assert.deepEqual(all.messages, expected.messages, `${user}: listing`);
      assert.equal(all.total, expected.total);
      assert.ok(all.messages.every((message: any) => message.deleted === false));
      assert.deepEqual(
        (await g!.ok(user, 'GET', '/secured/notifications/unseen-messages')).messages,
        unseenOf(notes, user),
        `${user}: unseen`,
      );
      await checkCounts(user);
      await checkCounts(user, { seen: false });
      await checkCounts(user, { filter: 'data' });
    };
    const systemIds = (answer: any) =>
      answer['system-messages'].map((message: any) => message.uuid);

    before(async () => {
      apps = await startAppsService();
      g = await startMetadataGateway({ engine, env: { APPS_URL: apps.backend.url } });
      if (!g) return;
      // alice: 25 of four types (tool_request also sent as "Tool Request"), some with text, outputs.
      const types = ['data', 'analysis', 'tool', 'tool_request'];
      await seed('alice', types, 25, (index) => ({
        ...(index === 7 ? { type: 'Tool Request' } : {}),
        ...(index % 2 === 0 ? { message: `text of note ${index}` } : {}),
        ...(index % 5 === 1
          ? {
              outputDir: `/platform/home/alice/out-${index}`,
              outputManifest: [{ path: `out-${index}/a.txt` }],
            }
          : {}),
        payload:
          types[index % 4] === 'tool'
            ? {
                email_address: 'alice@example.org',
                toolname: `tool-${index}`,
                tooldirectory: '/usr/bin',
                tooldescription: 'd',
                toolattribution: 'a',
                toolversion: '1',
              }
            : {
                action: index % 4 === 1 ? 'analysis_shared' : 'upload_complete',
                id: `job-${index}`,
                resultfolderid: `/platform/home/alice/r-${index}`,
              },
      }));
      await seed('bob', ['data', 'analysis'], 4);
      // Some of alice's seen and some deleted, through the API.
      const alices = notes.filter((note) => note.user === 'alice');
      const toSee = alices.filter((_note, index) => index % 3 === 0);
      const seen = await g.ok('alice', 'POST', '/secured/notifications/seen', {
        json: { uuids: toSee.map((note) => note.id) },
      });
      for (const note of toSee) note.seen = true;
      assert.deepEqual(seen, { success: true, count: unseenCount(notes, 'alice') });
      const toDelete = alices.filter((_note, index) => index % 7 === 2 || index === 3);
      const deleted = await g.ok('alice', 'POST', '/secured/notifications/delete', {
        json: { uuids: toDelete.map((note) => note.id) },
      });
      for (const note of toDelete) note.deleted = true;
      assert.deepEqual(deleted, { success: true, count: unseenCount(notes, 'alice') });
    });
    after(async () => {
      await g?.close();
      await apps?.backend.close();
    });

    // The web UI's notification menu and page (sonora src/components/notifications/NotificationsTab.js)
    // call `message.timestamp.slice(0, -3)`: a number there crashes the page, so it is a string of ms.
    test('a listed notification has every field of the spec; its timestamp is a string of ms', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const answer = await messages('alice');
      assert.equal(answer.total, expectedListing(notes, 'alice').total);
      assert.deepEqual(answer.messages, expectedListing(notes, 'alice').messages);
      for (const message of answer.messages) {
        assert.match(message.message.id, uuid);
        assert.equal(typeof message.message.text, 'string');
        assert.match(message.message.timestamp, /^[0-9]+$/);
        assert.ok(Math.abs(Number(message.message.timestamp) - Date.now()) < 600_000);
        assert.equal(typeof message.seen, 'boolean');
        assert.equal(message.deleted, false);
        assert.ok(
          ['data', 'analysis', 'tool', 'tool request'].includes(message.type),
          message.type,
        );
        assert.equal(message.user, 'alice');
        assert.equal(typeof message.payload, 'object');
        assert.equal(typeof message.outputDir, 'string');
        assert.ok(Array.isArray(message.outputManifest));
      }
      // The text is the message, or the subject when there is none; output fields as sent, or from the payload.
      const withText = notes.find(
        (note) =>
          note.user === 'alice' && !note.deleted && note.json.message.text.startsWith('text of'),
      )!;
      assert.ok(withText);
      const withOutputs = answer.messages.find((message: any) => message.outputManifest.length > 0);
      assert.match(withOutputs.outputDir, /^\/platform\/home\/alice\/out-\d+$/);
      const plain = answer.messages.find(
        (message: any) => message.type === 'data' && message.outputManifest.length === 0,
      );
      assert.equal(plain.outputDir, plain.payload.resultfolderid);
      // "Tool Request" and tool_request are one type, listed with a space.
      assert.ok(
        answer.messages.filter((message: any) => message.type === 'tool request').length >= 2,
      );
    });

    test('every listing parameter, alone and combined, against the reference', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const filters = [
        undefined,
        'data',
        'analysis',
        'Tool Request',
        'new',
        'TOOL',
        'tool_request',
      ];
      const seens = [undefined, true, false];
      const dirs = [undefined, 'asc', 'desc', 'DESC'];
      const dirNames = ['sortDir', 'sortdir', 'sort-dir', 'SORT-DIR'];
      const fieldParams: [string, string][] = [
        ['sortField', 'timestamp'],
        ['sortfield', 'timestamp'],
        ['sort-field', 'Timestamp'],
        ['SORTFIELD', 'TIMESTAMP'],
      ];
      const pages: { limit?: number; offset?: number }[] = [
        {},
        { limit: 0 },
        { limit: 1 },
        { limit: 5 },
        { limit: 5, offset: 3 },
        { offset: 4 },
        { limit: 0, offset: 15 },
        { limit: 5, offset: 100 },
      ];
      let round = 0;
      for (const filter of filters) {
        for (const seen of seens) {
          for (const sortDir of dirs) {
            for (const page of pages) {
              round++;
              const field = round % 5 === 0 ? undefined : fieldParams[round % fieldParams.length]!;
              const query = qs([
                [round % 2 ? 'limit' : 'LIMIT', page.limit],
                ['offset', page.offset],
                [round % 3 ? 'seen' : 'Seen', seen === undefined ? undefined : String(seen)],
                ...(field ? [field] : []),
                [dirNames[round % dirNames.length]!, sortDir],
                ['filter', filter],
              ]);
              const answer = await messages('alice', query);
              const expected = expectedListing(notes, 'alice', { filter, seen, sortDir, ...page });
              assert.deepEqual(
                answer.messages.map((message: any) => message.message.id),
                expected.messages.map((message) => message.message.id),
                query,
              );
              assert.deepEqual(answer.messages, expected.messages, query);
              assert.equal(answer.total, expected.total, query);
              assert.equal(answer.unseen_total, expected.unseen_total, query);
            }
          }
        }
      }
      // The filters mean something: each picks a non-empty proper subset.
      for (const filter of ['data', 'analysis', 'Tool Request', 'new']) {
        const { total } = expectedListing(notes, 'alice', { filter });
        assert.ok(total > 0 && total < expectedListing(notes, 'alice').total, filter);
      }
      // A repeat with the same value is one value.
      const same = await messages('alice', '?limit=5&LIMIT=5&sortDir=asc');
      assert.deepEqual(
        same.messages,
        expectedListing(notes, 'alice', { limit: 5, sortDir: 'asc' }).messages,
      );
    });

    test('listing parameters out of range are 400, conflicting repeats 409', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      for (const query of [
        'sortField=subject',
        'sortfield=uuid',
        'sort-field=date_created',
        'sortDir=sideways',
        'SORT-DIR=up',
      ]) {
        const answer = await g.call('alice', 'GET', `/secured/notifications/messages?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        assert.equal(answer.body.error_code, 'ERR_BAD_QUERY_PARAMETER', query);
      }
      for (const query of ['limit=-1', 'limit=ten', 'offset=-2', 'seen=maybe', 'limit=1.5']) {
        const answer = await g.call('alice', 'GET', `/secured/notifications/messages?${query}`);
        assert.equal(answer.status, 400, `${query}: ${answer.text}`);
        assert.match(answer.body.error_code, /^ERR_/, query);
      }
      for (const query of [
        'limit=1&limit=2',
        'sortDir=asc&SORTDIR=desc',
        'filter=data&Filter=tool',
        'seen=true&seen=false',
      ]) {
        const answer = await g.call('alice', 'GET', `/secured/notifications/messages?${query}`);
        assert.equal(answer.status, 409, `${query}: ${answer.text}`);
        assert.match(answer.body.error_code, /^ERR_/, query);
      }
      // Unknown parameters are ignored, as on the other listings.
      const unknown = await messages('alice', '?colour=blue&limit=2');
      assert.deepEqual(unknown.messages, expectedListing(notes, 'alice', { limit: 2 }).messages);
      const badCount = await g.call(
        'alice',
        'GET',
        '/secured/notifications/count-messages?seen=perhaps',
      );
      assert.equal(badCount.status, 400, badCount.text);
    });

    test('unseen-messages, last-ten-messages and count-messages', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const unseen = await g.ok('alice', 'GET', '/secured/notifications/unseen-messages');
      assert.deepEqual(unseen.messages, unseenOf(notes, 'alice'));
      assert.ok(
        unseen.messages.length > 0 &&
          unseen.messages.every((message: any) => message.seen === false),
      );

      // The ten newest, ascending; with fewer than ten, all of them; with none, none.
      const lastTen = (user: string) =>
        expectedListing(notes, user, { limit: 10 }).messages.reverse();
      const alices = await g.ok('alice', 'GET', '/secured/notifications/last-ten-messages');
      assert.equal(alices.messages.length, 10);
      assert.deepEqual(alices.messages, lastTen('alice'));
      const stamps: string[] = alices.messages.map((message: any) => message.message.timestamp);
      for (const stamp of stamps) assert.match(stamp, /^[0-9]+$/, 'a string of ms, as listed');
      assert.deepEqual(
        stamps,
        [...stamps].sort((a, b) => Number(a) - Number(b)),
      );
      const bobs = await g.ok('bob', 'GET', '/secured/notifications/last-ten-messages');
      assert.equal(bobs.messages.length, expectedListing(notes, 'bob').total);
      assert.ok(bobs.messages.length < 10);
      assert.deepEqual(bobs.messages, lastTen('bob'));
      assert.deepEqual(
        (await g.ok('nobody', 'GET', '/secured/notifications/last-ten-messages')).messages,
        [],
      );

      for (const options of [
        {},
        { seen: true },
        { seen: false },
        { filter: 'data' },
        { filter: 'new' },
        { filter: 'Tool Request' },
        { filter: 'tool', seen: false },
        { filter: 'analysis', seen: true },
      ]) {
        await checkCounts('alice', options);
      }
      await checkCounts('bob');
      await checkCounts('nobody');
      // Parameter names in any case.
      assert.equal(
        (await counts('alice', '?SEEN=false&Filter=DATA'))['user-total'],
        expectedListing(notes, 'alice', { seen: false, filter: 'data' }).total,
      );
    });

    test('counts after every transition of a notification: seen, mark-all-seen (three ways), delete, delete-all', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const user = 'erin';
      const mine = await seed(user, ['data', 'analysis', 'tool'], 12);
      await seed('frank', ['data'], 2);
      await checkUser(user);
      const countIs = (answer: any) =>
        assert.equal(answer.count, unseenCount(notes, user), JSON.stringify(answer));

      // POST seen: ids in any case, unknown ids ignored.
      const seen = await g.ok(user, 'POST', '/secured/notifications/seen', {
        json: { uuids: [mine[0]!.id, mine[1]!.id.toUpperCase(), randomUUID()] },
      });
      mine[0]!.seen = mine[1]!.seen = true;
      countIs(seen);
      assert.equal(seen.count, 10);
      await checkUser(user);
      assert.equal(
        (
          await g.call(user, 'POST', '/secured/notifications/seen', {
            json: { ids: [mine[2]!.id] },
          })
        ).status,
        400,
      );
      assert.equal(
        (await g.call(user, 'POST', '/secured/notifications/seen', { raw: '{"uuids": [' })).status,
        400,
      );

      // POST delete: a seen and an unseen one.
      const deleted = await g.ok(user, 'POST', '/secured/notifications/delete', {
        json: { uuids: [mine[1]!.id, mine[2]!.id] },
      });
      mine[1]!.deleted = mine[2]!.deleted = true;
      assert.equal(deleted.success, true);
      countIs(deleted);
      await checkUser(user);
      const ids = (await messages(user)).messages.map((message: any) => message.message.id);
      assert.ok(!ids.includes(mine[1]!.id) && !ids.includes(mine[2]!.id));

      // DELETE delete-all with a filter: only that type.
      const deletedData = await g.ok(
        user,
        'DELETE',
        '/secured/notifications/delete-all?filter=data',
      );
      for (const note of mine) if (note.stored === 'data') note.deleted = true;
      countIs(deletedData);
      await checkUser(user);
      assert.equal(expectedListing(notes, user, { filter: 'data' }).total, 0);
      assert.ok(expectedListing(notes, user).total > 0);

      // mark-all-seen with {}.
      const markAll = async (options: {
        json?: unknown;
        raw?: string;
        headers?: Record<string, string>;
      }) => {
        const answer = await g!.call(user, 'POST', '/secured/notifications/mark-all-seen', options);
        assert.equal(answer.status, 200, answer.text);
        for (const note of notes) if (note.user === user) note.seen = true;
        countIs(answer.body);
        assert.equal(answer.body.count, 0);
        await checkUser(user);
      };
      await markAll({ json: {} });
      // With no body at all (no content type either), and with an empty JSON body.
      mine.push(...(await seed(user, ['tool', 'data'], 3)));
      await checkUser(user);
      await markAll({});
      mine.push(...(await seed(user, ['analysis'], 2)));
      await markAll({ raw: '' });
      // A body naming another user marks the caller's, never frank's.
      mine.push(...(await seed(user, ['data', 'tool'], 3)));
      const frankBefore = unseenCount(notes, 'frank');
      assert.equal(frankBefore, 2);
      await markAll({ json: { user: 'frank', filter: 'data' } });
      assert.equal(unseenCount(notes, 'frank'), frankBefore);
      await checkUser('frank');
      // A body that is not an object is refused.
      for (const raw of ['[]', '"x"', '{"user": ']) {
        const refused = await g.call(user, 'POST', '/secured/notifications/mark-all-seen', { raw });
        assert.equal(refused.status, 400, `${raw}: ${refused.text}`);
      }

      // DELETE delete-all without a filter: everything of the caller's, nothing of frank's.
      mine.push(...(await seed(user, ['data', 'analysis'], 2)));
      const all = await g.ok(user, 'DELETE', '/secured/notifications/delete-all');
      for (const note of notes) if (note.user === user) note.deleted = true;
      countIs(all);
      assert.equal(all.count, 0);
      await checkUser(user);
      assert.deepEqual(await messages(user), { messages: [], total: 0, unseen_total: 0 });
      assert.deepEqual(
        (await g.ok(user, 'GET', '/secured/notifications/last-ten-messages')).messages,
        [],
      );
      await checkUser('frank');
      assert.equal(expectedListing(notes, 'frank').total, 2);
    });

    test("user isolation: bob never sees alice's notifications and cannot mark or delete them", async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const alicesBefore = await messages('alice');
      const aliceCounts = await counts('alice');
      const bobs = await messages('bob');
      assert.deepEqual(bobs.messages, expectedListing(notes, 'bob').messages);
      assert.ok(bobs.messages.every((message: any) => message.user === 'bob'));
      const aliceIds = notes
        .filter((note) => note.user === 'alice' && !note.deleted && !note.seen)
        .map((note) => note.id);
      assert.ok(aliceIds.length > 3);

      const seen = await g.ok('bob', 'POST', '/secured/notifications/seen', {
        json: { uuids: aliceIds },
      });
      assert.equal(seen.count, unseenCount(notes, 'bob'));
      const deleted = await g.ok('bob', 'POST', '/secured/notifications/delete', {
        json: { uuids: aliceIds },
      });
      assert.equal(deleted.count, unseenCount(notes, 'bob'));
      assert.deepEqual(await messages('alice'), alicesBefore);
      assert.deepEqual(await counts('alice'), aliceCounts);
      await checkUser('bob');

      // Bob's mark-all and delete-all touch only bob's.
      await g.ok('bob', 'POST', '/secured/notifications/mark-all-seen', {
        json: { user: 'alice' },
      });
      for (const note of notes) if (note.user === 'bob') note.seen = true;
      await checkUser('bob');
      await g.ok('bob', 'DELETE', '/secured/notifications/delete-all?user=alice');
      for (const note of notes) if (note.user === 'bob') note.deleted = true;
      await checkUser('bob');
      assert.equal(expectedListing(notes, 'bob').total, 0);
      assert.deepEqual(await messages('alice'), alicesBefore);
      assert.deepEqual(await counts('alice'), aliceCounts);
      await checkUser('alice');
    });

    test('system messages: admin routes, the user transitions, counts for two users independently', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const now = Date.now();
      const create = async (body: Record<string, unknown>) => {
        const answer = await g!.call(admin, 'PUT', '/admin/notifications/system', { json: body });
        assert.equal(answer.status, 200, answer.text);
        const json = answer.body['system-notification'];
        assert.match(json.uuid, uuid);
        system.messages.push({ uuid: json.uuid, json });
        return json;
      };
      const m1 = await create({
        type: 'announcement',
        message: 'Dismiss me',
        deactivation_date: now + 3_600_000,
        dismissible: true,
      });
      const m2 = await create({
        type: 'maintenance',
        message: 'You cannot dismiss me',
        deactivation_date: new Date(now + 7_200_000).toISOString(),
      });
      // Not yet active: never counted, never listed for users.
      const later = await create({
        type: 'warning',
        message: 'Tomorrow',
        activation_date: now + 86_400_000,
        deactivation_date: now + 2 * 86_400_000,
        dismissible: true,
      });
      assert.deepEqual(
        { ...m1, uuid: 'x', date_created: 0, activation_date: 0 },
        {
          uuid: 'x',
          type: 'announcement',
          message: 'Dismiss me',
          date_created: 0,
          activation_date: 0,
          deactivation_date: now + 3_600_000,
          dismissible: true,
          logins_disabled: false,
        },
      );
      assert.equal(m2.deactivation_date, now + 7_200_000);
      assert.equal(m2.dismissible, false);
      assert.equal(typeof m1.activation_date, 'number');

      const users = ['alice', 'bob'];
      const check = async (label: string) => {
        for (const user of users) {
          await checkCounts(user);
          await checkCounts(user, { seen: false });
          assert.deepEqual(
            (await g!.ok(user, 'GET', '/secured/notifications/system/messages'))['system-messages'],
            system.listing(user, 3),
            `${label}: ${user} messages`,
          );
          assert.deepEqual(
            (await g!.ok(user, 'GET', '/secured/notifications/system/new-messages'))[
              'system-messages'
            ],
            system.listing(user, 1),
            `${label}: ${user} new`,
          );
          assert.deepEqual(
            (await g!.ok(user, 'GET', '/secured/notifications/system/unseen-messages'))[
              'system-messages'
            ],
            system.listing(user, 2),
            `${label}: ${user} unseen`,
          );
        }
      };
      await check('created');
      assert.deepEqual(system.counts('alice'), {
        'system-total': 2,
        'system-total-new': 2,
        'system-total-unseen': 2,
      });

      // Admin listing and lookups.
      const list = await g.ok(admin, 'GET', '/admin/notifications/system');
      assert.equal(list.total, system.messages.length);
      assert.deepEqual(
        systemIds(list).sort(),
        system.messages.map((message) => message.uuid).sort(),
      );
      const activeOnly = await g.ok(admin, 'GET', '/admin/notifications/system?active-only=true');
      assert.deepEqual(
        systemIds(activeOnly).sort(),
        system
          .active()
          .map((message) => message.uuid)
          .sort(),
      );
      assert.ok(!systemIds(activeOnly).includes(later.uuid));
      assert.deepEqual(
        systemIds(await g.ok(admin, 'GET', '/admin/notifications/system?type=maintenance')),
        [m2.uuid],
      );
      assert.deepEqual(await g.ok(admin, 'GET', `/admin/notifications/system/${m1.uuid}`), {
        'system-notification': m1,
      });
      const types = (await g.ok(admin, 'GET', '/admin/notifications/system-types')).types;
      for (const type of ['announcement', 'maintenance', 'warning'])
        assert.ok(types.includes(type), type);
      assert.deepEqual(types, [...types].sort());
      const badType = await g.call(admin, 'PUT', '/admin/notifications/system', {
        json: { type: 'gossip', message: 'x', deactivation_date: now + 60_000 },
      });
      assert.equal(badType.status, 400, badType.text);
      assert.equal(
        (await g.call(admin, 'GET', `/admin/notifications/system/${randomUUID()}`)).status,
        404,
      );

      // alice receives m1, then all; bob does nothing yet.
      const received = await g.ok('alice', 'POST', '/secured/notifications/system/received', {
        json: { uuids: [m1.uuid] },
      });
      system.raise('alice', [m1.uuid], 1);
      assert.equal(received.count, system.counts('alice')['system-total-new']);
      await check('alice received one');
      const allReceived = await g.ok(
        'alice',
        'POST',
        '/secured/notifications/system/mark-all-received',
        { json: {} },
      );
      system.raise('alice', 'active', 1);
      assert.equal(allReceived.count, 0);
      await check('alice received all');

      // alice sees m2; bob marks all seen with no body at all.
      const seen = await g.ok('alice', 'POST', '/secured/notifications/system/seen', {
        json: { uuids: [m2.uuid] },
      });
      system.raise('alice', [m2.uuid], 2);
      assert.equal(seen.count, system.counts('alice')['system-total-unseen']);
      assert.equal(seen.count, 1);
      await check('alice saw m2');
      const bobSeen = await g.ok('bob', 'POST', '/secured/notifications/system/mark-all-seen');
      system.raise('bob', 'active', 2);
      assert.equal(bobSeen.count, 0);
      await check('bob saw all');
      // A body naming another user changes the caller's state only.
      await g.ok('alice', 'POST', '/secured/notifications/system/mark-all-received', {
        json: { user: 'carol' },
      });
      assert.deepEqual(system.counts('carol'), {
        'system-total': 2,
        'system-total-new': 2,
        'system-total-unseen': 2,
      });
      await checkCounts('carol');

      // alice dismisses: m2 is not dismissible, m1 is.
      const notDismissed = await g.ok('alice', 'POST', '/secured/notifications/system/delete', {
        json: { uuids: [m2.uuid] },
      });
      assert.equal(notDismissed.count, system.counts('alice')['system-total']);
      await check('alice tried m2');
      const dismissed = await g.ok('alice', 'POST', '/secured/notifications/system/delete', {
        json: { uuids: [m1.uuid] },
      });
      system.raise('alice', [m1.uuid], 3);
      assert.equal(dismissed.count, system.counts('alice')['system-total']);
      assert.equal(dismissed.count, 1);
      await check('alice dismissed m1');
      // bob dismisses all he can.
      await g.ok('bob', 'DELETE', '/secured/notifications/system/delete-all');
      system.raise('bob', 'active', 3);
      await check('bob dismissed all');
      assert.deepEqual(
        systemIds(await g.ok('bob', 'GET', '/secured/notifications/system/messages')),
        [m2.uuid],
      );

      // An update makes m2 news again for both; the dismissal of m1 stays.
      const updated = await g.ok(admin, 'POST', `/admin/notifications/system/${m2.uuid}`, {
        json: { message: 'Maintenance moved' },
      });
      assert.equal(updated['system-notification'].message, 'Maintenance moved');
      system.messages.find((message) => message.uuid === m2.uuid)!.json =
        updated['system-notification'];
      system.reset(m2.uuid);
      assert.deepEqual(await g.ok(admin, 'GET', `/admin/notifications/system/${m2.uuid}`), updated);
      await check('m2 updated');
      assert.deepEqual(system.counts('alice'), {
        'system-total': 1,
        'system-total-new': 1,
        'system-total-unseen': 1,
      });

      // Deleted messages are gone for everyone.
      const removed = await g.ok(admin, 'DELETE', `/admin/notifications/system/${m1.uuid}`);
      assert.equal(removed['system-notification'].uuid, m1.uuid);
      system.remove(m1.uuid);
      assert.equal(
        (await g.call(admin, 'GET', `/admin/notifications/system/${m1.uuid}`)).status,
        404,
      );
      await check('m1 deleted');
      assert.equal(
        (await g.ok(admin, 'GET', '/admin/notifications/system')).total,
        system.messages.length,
      );

      // Non-administrators: 403 on every admin route, nothing changed.
      for (const [method, route, json] of [
        [
          'PUT',
          '/admin/notifications/system',
          { type: 'warning', message: 'sneaky', deactivation_date: now + 60_000 },
        ],
        ['GET', '/admin/notifications/system', undefined],
        ['GET', `/admin/notifications/system/${m2.uuid}`, undefined],
        ['POST', `/admin/notifications/system/${m2.uuid}`, { message: 'sneaky' }],
        ['DELETE', `/admin/notifications/system/${m2.uuid}`, undefined],
        ['GET', '/admin/notifications/system-types', undefined],
      ] as const) {
        const refused = await g.call('alice', method, route, { json });
        assert.equal(refused.status, 403, `${method} ${route}: ${refused.text}`);
        assert.equal(
          (await g.call(null, method, route, { json })).status,
          401,
          `${method} ${route} without a token`,
        );
      }
      assert.deepEqual(await g.ok(admin, 'GET', `/admin/notifications/system/${m2.uuid}`), updated);
      assert.equal(
        (await g.ok(admin, 'GET', '/admin/notifications/system')).total,
        system.messages.length,
      );
    });

    test('every /secured/notifications route is 401 without a token', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const ids = { json: { uuids: [notes[0]!.id] } };
      for (const [method, route, options] of [
        ['GET', '/secured/notifications/messages', {}],
        ['GET', '/secured/notifications/unseen-messages', {}],
        ['GET', '/secured/notifications/last-ten-messages', {}],
        ['GET', '/secured/notifications/count-messages', {}],
        ['POST', '/secured/notifications/seen', ids],
        ['POST', '/secured/notifications/mark-all-seen', { json: {} }],
        ['POST', '/secured/notifications/delete', ids],
        ['DELETE', '/secured/notifications/delete-all', {}],
        ['GET', '/secured/notifications/system/messages', {}],
        ['GET', '/secured/notifications/system/new-messages', {}],
        ['GET', '/secured/notifications/system/unseen-messages', {}],
        ['POST', '/secured/notifications/system/received', ids],
        ['POST', '/secured/notifications/system/mark-all-received', {}],
        ['POST', '/secured/notifications/system/seen', ids],
        ['POST', '/secured/notifications/system/mark-all-seen', {}],
        ['POST', '/secured/notifications/system/delete', ids],
        ['DELETE', '/secured/notifications/system/delete-all', {}],
        ['GET', '/secured/notifications/stream', {}],
      ] as const) {
        const answer = await g.call(null, method, route, options);
        assert.equal(answer.status, 401, `${method} ${route}: ${answer.text}`);
        const wrong = await g.call(null, method, route, {
          ...options,
          headers: { authorization: 'Bearer not.a.token' },
        });
        assert.equal(wrong.status, 401, `${method} ${route} with a bad token: ${wrong.text}`);
      }
      await checkUser('alice');
    });

    test('POST /send-notification: loopback, no token; bad bodies are 400 and record nothing', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const user = 'gina';
      const sent = await send(g, {
        type: 'data',
        user: `${user}@example.org`,
        subject: 'Your upload is done',
        message: 'upload.txt arrived',
        payload: { action: 'upload_complete', path: '/p' },
      });
      assert.equal(sent.user, user);
      assert.match(sent.id, uuid);
      assert.deepEqual(sent.json.payload, { action: 'upload_complete', path: '/p' });
      assert.equal(sent.json.message.text, 'upload.txt arrived');
      assert.deepEqual((await messages(user)).messages, expectedListing(notes, user).messages);
      assert.equal((await messages(user)).total, 1);
      await checkCounts(user);

      const good = { type: 'data', user, subject: 'fine' };
      const { type: _t, ...noType } = good;
      const { user: _u, ...noUser } = good;
      const { subject: _s, ...noSubject } = good;
      const bad: [string, { json?: unknown; raw?: string }][] = [
        ['no type', { json: noType }],
        ['no user', { json: noUser }],
        ['no subject', { json: noSubject }],
        ['empty subject', { json: { ...good, subject: '' } }],
        ['type with a dot', { json: { ...good, type: 'data.upload' } }],
        ['type of 33 characters', { json: { ...good, type: 'x'.repeat(33) } }],
        ['payload a list', { json: { ...good, payload: [1, 2] } }],
        ['payload a string', { json: { ...good, payload: 'text' } }],
        ['user an object', { json: { ...good, user: { name: user } } }],
        ['malformed JSON', { raw: '{"type": "data", ' }],
        ['a list', { json: [good] }],
      ];
      for (const [label, options] of bad) {
        const answer = await g.call(null, 'POST', '/send-notification', options);
        assert.equal(answer.status, 400, `${label}: ${answer.text}`);
        assert.match(answer.body?.error_code ?? '', /^ERR_[A-Z_]+$/, `${label}: ${answer.text}`);
      }
      // A type of exactly 32 characters is fine.
      await send(g, { ...good, type: 'y'.repeat(32) });
      const listing = await messages(user);
      assert.equal(listing.total, 2);
      assert.deepEqual(listing.messages, expectedListing(notes, user).messages);
    });

    test('app descriptions: one apps call per page, cached, unknown analyses and other notifications intact', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const user = 'carol';
      const [a1, a2, a3, a4] = [randomUUID(), randomUUID(), randomUUID(), randomUUID()];
      apps.descriptions.set(a1, 'Aligns reads to a reference');
      apps.descriptions.set(a2, 'Counts words');
      apps.descriptions.set(a4, 'Arrives later');
      const job = (analysis: unknown, status: string) => ({
        type: 'analysis',
        user,
        subject: `job ${String(analysis)} ${status}`,
        payload: {
          action: 'job_status_change',
          analysis_id: analysis,
          analysis_name: 'run',
          status,
          user,
          startdate: String(Date.now()),
        },
      });
      await send(g, job(a1, 'Submitted'));
      await send(g, job(a2, 'Completed'));
      await send(g, job(a1, 'Completed'));
      await send(g, job(a3, 'Failed')); // the apps service does not know a3
      await send(g, job(42, 'Failed')); // not a usable analysis id
      await send(g, {
        type: 'analysis',
        user,
        subject: 'shared with you',
        payload: { action: 'share', analysis_id: a1 },
      });
      await send(g, {
        type: 'data',
        user,
        subject: 'upload done',
        payload: { action: 'upload_complete' },
      });
      const described = (notesOf: Record<string, any>[]) =>
        notesOf.map((message) => {
          const id = message.payload.analysis_id;
          return message.payload.action === 'job_status_change' && apps.descriptions.has(id)
            ? {
                ...message,
                payload: { ...message.payload, app_description: apps.descriptions.get(id) },
              }
            : message;
        });

      let since = apps.backend.requests.length;
      const first = await messages(user);
      assert.deepEqual(first.messages, described(expectedListing(notes, user).messages));
      assert.equal(
        first.messages.filter((message: any) => 'app_description' in message.payload).length,
        3,
      );
      const asked = apps.asked(since);
      assert.equal(asked.length, 1, 'one apps call for the page');
      assert.deepEqual([...asked[0]!].sort(), [a1, a2, a3].sort());
      assert.equal(apps.backend.requests.at(-1)!.query.get('user'), user);

      // Within the cache time: no apps call, for the listing, the unseen, the last ten or a page.
      since = apps.backend.requests.length;
      assert.deepEqual((await messages(user)).messages, first.messages);
      assert.deepEqual(
        (await g.ok(user, 'GET', '/secured/notifications/unseen-messages')).messages,
        described(unseenOf(notes, user)),
      );
      assert.deepEqual(
        (await g.ok(user, 'GET', '/secured/notifications/last-ten-messages')).messages,
        described(expectedListing(notes, user, { limit: 10 }).messages.reverse()),
      );
      assert.deepEqual(
        (await messages(user, '?limit=2&sortDir=asc')).messages,
        described(expectedListing(notes, user, { limit: 2, sortDir: 'asc' }).messages),
      );
      assert.deepEqual(apps.asked(since), []);

      // A new analysis: one call, for it alone.
      await send(g, job(a4, 'Completed'));
      since = apps.backend.requests.length;
      assert.deepEqual(
        (await messages(user)).messages,
        described(expectedListing(notes, user).messages),
      );
      assert.deepEqual(apps.asked(since), [[a4]]);

      // A failing apps service leaves the listing whole; failures are not cached.
      const user2 = 'hank';
      const [b1, b2] = [randomUUID(), randomUUID()];
      apps.descriptions.set(b1, 'B one');
      apps.descriptions.set(b2, 'B two');
      await send(g, { ...job(b1, 'Completed'), user: user2 });
      await send(g, { ...job(b2, 'Failed'), user: user2 });
      await send(g, { type: 'data', user: user2, subject: 'plain' });
      apps.failing = true;
      try {
        since = apps.backend.requests.length;
        const failed = await g.call(user2, 'GET', '/secured/notifications/messages');
        assert.equal(failed.status, 200, failed.text);
        assert.deepEqual(failed.body.messages, expectedListing(notes, user2).messages);
        assert.equal(failed.body.total, 3);
        assert.equal(apps.asked(since).length, 1);
      } finally {
        apps.failing = false;
      }
      since = apps.backend.requests.length;
      assert.deepEqual(
        (await messages(user2)).messages,
        described(expectedListing(notes, user2).messages),
      );
      assert.equal(apps.asked(since).length, 1);
    });

    test('admin alerts: POST translates, GET shows, duplicates are ERR_EXISTS, DELETE removes; administrators only', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const endDate = '2031-05-01T10:00:00Z';
      const text = `Maintenance ${randomUUID()}`;
      const later = {
        'start-date': '2031-04-01T00:00:00+02:00',
        'end-date': '2031-06-01T00:00:00Z',
        'alert-text': `Later ${randomUUID()}`,
      };
      const ours = async (route: string, user: string | null) =>
        ((await g!.ok(user, 'GET', route)).alerts as any[]).filter(
          (alert) => alert.alert === text || alert.alert === later['alert-text'],
        );
      const iso = (date: string) => new Date(date).toISOString();

      assert.deepEqual(
        await g.ok(admin, 'POST', '/admin/alerts', {
          json: { 'end-date': endDate, 'alert-text': text },
        }),
        { start_date: null, end_date: endDate, alert: text },
      );
      assert.deepEqual(await g.ok(admin, 'POST', '/admin/alerts', { json: later }), {
        start_date: later['start-date'],
        end_date: later['end-date'],
        alert: later['alert-text'],
      });
      const both = [
        { start_date: null, end_date: iso(endDate), alert: text },
        {
          start_date: iso(later['start-date']),
          end_date: iso(later['end-date']),
          alert: later['alert-text'],
        },
      ];
      assert.deepEqual(await ours('/alerts/all', 'alice'), both);
      assert.deepEqual(await ours('/alerts/all', null), both);
      // Active now: the one without a start (the other starts in 2031).
      assert.deepEqual(await ours('/alerts/active', 'alice'), [both[0]]);

      const duplicate = await g.call(admin, 'POST', '/admin/alerts', {
        json: { 'end-date': endDate, 'alert-text': text },
      });
      assert.ok(duplicate.status >= 400 && duplicate.status < 500, duplicate.text);
      assert.equal(duplicate.body.error_code, 'ERR_EXISTS');
      const missing = await g.call(admin, 'POST', '/admin/alerts', {
        json: { 'alert-text': 'no end' },
      });
      assert.equal(missing.status, 400, missing.text);

      for (const method of ['POST', 'DELETE']) {
        const refused = await g.call('alice', method, '/admin/alerts', {
          json: { 'end-date': endDate, 'alert-text': text },
        });
        assert.equal(refused.status, 403, `${method}: ${refused.text}`);
        assert.equal(
          (
            await g.call(null, method, '/admin/alerts', {
              json: { 'end-date': endDate, 'alert-text': text },
            })
          ).status,
          401,
        );
      }
      assert.deepEqual(await ours('/alerts/all', 'alice'), both);

      assert.deepEqual(
        await g.ok(admin, 'DELETE', '/admin/alerts', {
          json: { 'end-date': endDate, 'alert-text': text },
        }),
        { 'end-date': endDate, 'alert-text': text },
      );
      assert.deepEqual(await ours('/alerts/all', 'alice'), [both[1]]);
      await g.ok(admin, 'DELETE', '/admin/alerts', {
        json: { 'end-date': later['end-date'], 'alert-text': later['alert-text'] },
      });
      assert.deepEqual(await ours('/alerts/all', 'alice'), []);
    });

    test('POST /send-notification honours SEND_NOTIFICATION_ALLOW and TRUST_PROXY', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const body = { type: 'data', user: 'ivan', subject: 'hello' };
      const listingOf = async (gateway: MetadataGateway) =>
        gateway.ok('ivan', 'GET', '/secured/notifications/messages');

      const elsewhere = (await startMetadataGateway({
        engine,
        env: { SEND_NOTIFICATION_ALLOW: '10.0.0.0/8' },
      }))!;
      try {
        const refused = await elsewhere.call(null, 'POST', '/send-notification', { json: body });
        assert.equal(refused.status, 403, refused.text);
        assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
        // Refused before the body is looked at.
        const refusedBad = await elsewhere.call(null, 'POST', '/send-notification', {
          raw: '{"type":',
        });
        assert.equal(refusedBad.status, 403, refusedBad.text);
        // A forged X-Forwarded-For is not believed without TRUST_PROXY.
        assert.equal(
          (
            await elsewhere.call(null, 'POST', '/send-notification', {
              json: body,
              headers: { 'x-forwarded-for': '10.1.2.3' },
            })
          ).status,
          403,
        );
        assert.deepEqual(await listingOf(elsewhere), { messages: [], total: 0, unseen_total: 0 });
      } finally {
        await elsewhere.close();
      }

      const proxied = (await startMetadataGateway({
        engine,
        env: { TRUST_PROXY: 'true', SEND_NOTIFICATION_ALLOW: '203.0.113.0/24' },
      }))!;
      try {
        const accepted = await proxied.call(null, 'POST', '/send-notification', {
          json: body,
          headers: { 'x-forwarded-for': '203.0.113.9' },
        });
        assert.equal(accepted.status, 200, accepted.text);
        for (const headers of [{ 'x-forwarded-for': '198.51.100.1' }, {}] as Record<
          string,
          string
        >[]) {
          const refused = await proxied.call(null, 'POST', '/send-notification', {
            json: { ...body, subject: 'refused' },
            headers,
          });
          assert.equal(refused.status, 403, `${JSON.stringify(headers)}: ${refused.text}`);
          assert.equal(refused.body.error_code, 'ERR_FORBIDDEN');
        }
        const listing = await listingOf(proxied);
        assert.equal(listing.total, 1);
        assert.deepEqual(listing.messages, [
          { ...accepted.body.notification, seen: false, deleted: false },
        ]);
      } finally {
        await proxied.close();
      }
    });

    test('APP_DESCRIPTION_CACHE_MS=0: every listing asks the apps service', async (t) => {
      if (!g) return t.skip('DATABASE_URL not set');
      const uncached = (await startMetadataGateway({
        engine,
        env: { APPS_URL: apps.backend.url, APP_DESCRIPTION_CACHE_MS: '0' },
      }))!;
      try {
        const analysis = randomUUID();
        apps.descriptions.set(analysis, 'Never cached');
        const sent = await send(uncached, {
          type: 'analysis',
          user: 'judy',
          subject: 'done',
          payload: { action: 'job_status_change', analysis_id: analysis },
        });
        await send(uncached, {
          type: 'analysis',
          user: 'judy',
          subject: 'done again',
          payload: { action: 'job_status_change', analysis_id: analysis },
        });
        for (let round = 0; round < 3; round++) {
          const since = apps.backend.requests.length;
          const listing = await uncached.ok('judy', 'GET', '/secured/notifications/messages');
          assert.equal(listing.messages.length, 2);
          for (const message of listing.messages)
            assert.equal(message.payload.app_description, 'Never cached');
          assert.deepEqual(apps.asked(since), [[analysis]]);
        }
        const listed = (
          await uncached.ok('judy', 'GET', '/secured/notifications/messages?sortDir=asc')
        ).messages;
        assert.deepEqual(
          listed.find((message: any) => message.message.id === sent.id),
          {
            ...sent.json,
            seen: false,
            deleted: false,
            payload: { ...sent.json.payload, app_description: 'Never cached' },
          },
        );
      } finally {
        await uncached.close();
      }
    });
  });
}
