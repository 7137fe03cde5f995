// The embedded notification agent (backends.md §4) over real HTTP, on each engine, with a clock the
// tests move: recording notifications, listings (filter, seen, sort, paging) against expectations
// computed here, seen and delete routes, system messages, and the event stream.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type ClientRequest, type IncomingHttpHeaders } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { backendSecretHeader } from '../../../src/embedded/host.ts';
import {
  hostEngines,
  secret,
  type BackendHost,
  type HttpAnswer,
} from '../../support/backend-host.ts';

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const prefix = '/notification-agent';

/** `?a=1&b=2` with every value percent-encoded (spaces as %20); undefined values are left out. */
function qs(params: Record<string, string | number | boolean | undefined>): string {
  const parts = Object.entries(params)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`);
  return parts.length ? `?${parts.join('&')}` : '';
}

/** The type as the agent stores and filters it: lower case, `_` for spaces. */
const stored = (type: string) => type.trim().toLowerCase().replace(/ /g, '_');
const byString = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** One notification as the test knows it: the answer to POST /notification, kept up to date. */
interface Note {
  id: string;
  user: string;
  stored: string;
  subject: string;
  timestamp: number;
  seen: boolean;
  deleted: boolean;
  json: Record<string, any>;
}

/** What GET /messages should answer for `notes`, by the rules of backends.md §4.3 (filter, seen, sort, page). */
function expectedListing(
  notes: Note[],
  user: string,
  options: {
    seen?: boolean;
    filter?: string;
    sortField?: string;
    sortDir?: string;
    limit?: number;
    offset?: number;
  } = {},
) {
  const filter = options.filter === undefined ? undefined : stored(options.filter);
  const seen = filter === 'new' ? false : options.seen;
  const type = filter === 'new' ? undefined : filter;
  const live = notes.filter(
    (note) => note.user === user && !note.deleted && (type === undefined || note.stored === type),
  );
  const matching = live.filter((note) => seen === undefined || note.seen === seen);
  const field = (options.sortField ?? 'timestamp').toLowerCase();
  const key = (note: Note): number | string =>
    field === 'uuid' ? note.id : field === 'subject' ? note.subject : note.timestamp;
  const sorted = [...matching].sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const order =
      typeof x === 'number' && typeof y === 'number' ? x - y : byString(String(x), String(y));
    return order || byString(a.id, b.id);
  });
  if ((options.sortDir ?? 'desc').toLowerCase() === 'desc') sorted.reverse();
  const offset = options.offset ?? 0;
  const limit = options.limit ?? 0;
  const page = limit === 0 ? sorted.slice(offset) : sorted.slice(offset, offset + limit);
  return {
    ids: page.map((note) => note.id),
    total: matching.length,
    unseen_total: live.filter((note) => !note.seen).length,
    page,
  };
}

/** One Server-Sent Events frame: its fields, or a comment line (heartbeat). */
interface Frame {
  id?: string;
  event?: string;
  data?: string;
  retry?: string;
  comment?: string;
}

/** A streaming GET /stream: frames are parsed as they arrive; `next` waits for one that matches. */
class EventStream {
  readonly frames: Frame[] = [];
  private cursor = 0;
  private buffer = '';
  private wake: (() => void) | undefined;
  private ended = false;

  readonly request: ClientRequest;
  readonly status: number;
  readonly headers: IncomingHttpHeaders;
  private constructor(request: ClientRequest, status: number, headers: IncomingHttpHeaders) {
    this.request = request;
    this.status = status;
    this.headers = headers;
  }

  static open(port: number, user: string, lastEventId?: string): Promise<EventStream> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string> = {
        [backendSecretHeader]: secret,
        accept: 'text/event-stream',
      };
      if (lastEventId !== undefined) headers['last-event-id'] = lastEventId;
      const request = httpRequest(
        {
          host: '127.0.0.1',
          port,
          method: 'GET',
          path: `${prefix}/stream${qs({ user })}`,
          headers,
          agent: false,
        },
        (response) => {
          const stream = new EventStream(request, response.statusCode ?? 0, response.headers);
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => stream.receive(chunk));
          const end = () => {
            stream.ended = true;
            stream.wake?.();
          };
          response.on('end', end);
          response.on('close', end);
          response.on('error', end);
          resolve(stream);
        },
      );
      request.on('error', reject);
      request.end();
    });
  }

  private receive(chunk: string): void {
    this.buffer += chunk;
    let boundary: RegExpExecArray | null;
    while ((boundary = /\r?\n\r?\n/.exec(this.buffer))) {
      const block = this.buffer.slice(0, boundary.index);
      this.buffer = this.buffer.slice(boundary.index + boundary[0].length);
      const frame: Frame = {};
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith(':')) {
          frame.comment = line.slice(1).trim();
          continue;
        }
        const colon = line.indexOf(':');
        const name = colon === -1 ? line : line.slice(0, colon);
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data')
          frame.data = frame.data === undefined ? value : `${frame.data}\n${value}`;
        else if (name === 'id' || name === 'event' || name === 'retry') frame[name] = value;
      }
      this.frames.push(frame);
    }
    this.wake?.();
  }

  /** The next frame (after the last one returned) that matches, with the frames passed over on the way. */
  async next(
    what: string,
    match: (frame: Frame) => boolean,
    timeoutMs = 5_000,
  ): Promise<{ frame: Frame; skipped: Frame[] }> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      for (let index = this.cursor; index < this.frames.length; index++) {
        if (match(this.frames[index]!)) {
          const skipped = this.frames.slice(this.cursor, index);
          this.cursor = index + 1;
          return { frame: this.frames[index]!, skipped };
        }
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.ended) {
        assert.fail(
          `no ${what} on the stream within ${timeoutMs} ms${this.ended ? ' (it ended)' : ''}; frames after the cursor: ${JSON.stringify(this.frames.slice(this.cursor))}`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.wake = undefined;
    }
  }

  event(name: string, what: string, extra: (data: any, frame: Frame) => boolean = () => true) {
    return this.next(
      what,
      (frame) => frame.event === name && extra(JSON.parse(frame.data ?? 'null'), frame),
    );
  }

  close(): void {
    this.request.destroy();
  }
}

/** The notification agent (backends.md §4) over real HTTP, on each engine, with a clock the tests move. */
for (const engine of hostEngines) {
  describe(`notification agent on ${engine.name}`, () => {
    let clock = Date.UTC(2025, 0, 1);
    const tick = (ms = 1_000) => (clock += ms);
    let service: BackendHost | undefined;
    before(async () => {
      service = await engine.open({
        names: ['notification-agent'],
        now: () => clock,
        env: () => ({ NOTIFICATION_STREAM_HEARTBEAT_MS: '200' }),
      });
    });
    after(async () => service?.close());
    const skipped = 'DATABASE_URL is not set (CI sets it)';

    type Body = { json: unknown } | { raw: string };
    const call = (method: string, url: string, body?: Body): Promise<HttpAnswer> =>
      service!.request(
        method,
        `${prefix}${url}`,
        body === undefined
          ? {}
          : {
              headers: { 'content-type': 'application/json' },
              body: 'raw' in body ? body.raw : JSON.stringify(body.json),
            },
      );
    const ok = async (method: string, url: string, json?: unknown) => {
      const answer = await call(method, url, json === undefined ? undefined : { json });
      assert.equal(answer.status, 200, `${method} ${url}: ${answer.text}`);
      return answer.json();
    };
    const refused = async (
      method: string,
      url: string,
      body: Body | undefined,
      status: number,
      code: string,
      field?: string,
    ) => {
      const answer = await call(method, url, body);
      const label = `${method} ${url} ${body ? JSON.stringify(body) : ''}`;
      assert.equal(answer.status, status, `${label}: ${answer.text}`);
      assert.equal(answer.json().error_code, code, `${label}: ${answer.text}`);
      if (field !== undefined) assert.equal(answer.json().field, field, `${label}: ${answer.text}`);
    };

    const notes: Note[] = [];
    /** Records a notification at the current clock (then moves it on) and keeps it in `notes`. */
    const record = async (
      fields: Record<string, unknown> & { type: string; user: string; subject: string },
    ): Promise<Note> => {
      const answer = await ok('POST', '/notification', fields);
      const json = answer.notification;
      const note: Note = {
        id: json.message.id,
        user: json.user,
        stored: stored(fields.type),
        subject: fields.subject,
        timestamp: Number(json.message.timestamp),
        seen: false,
        deleted: false,
        json,
      };
      notes.push(note);
      tick(1_000);
      return note;
    };
    const current = (note: Note) => ({ ...note.json, seen: note.seen, deleted: note.deleted });

    /** Everything the user routes tell about `user` agrees with `notes`. */
    const checkUser = async (user: string, label: string) => {
      const all = await ok('GET', `/messages${qs({ user })}`);
      const expected = expectedListing(notes, user);
      assert.deepEqual(
        all,
        {
          messages: expected.page.map(current),
          total: expected.total,
          unseen_total: expected.unseen_total,
        },
        `${label}: ${user}'s listing`,
      );
      const unseen = expectedListing(notes, user, { seen: false, sortDir: 'asc' });
      assert.deepEqual(
        await ok('GET', `/unseen-messages${qs({ user })}`),
        { messages: unseen.page.map(current), total: unseen.total, unseen_total: unseen.total },
        `${label}: ${user}'s unseen messages`,
      );
      const counts = await ok('GET', `/count-messages${qs({ user })}`);
      assert.equal(counts['user-total'], expected.total, `${label}: ${user}'s count`);
      return expected.unseen_total;
    };

    test('POST /notification answers the Notification; bad bodies are 400 naming the field', async (t) => {
      if (!service) return t.skip(skipped);
      const payload = {
        action: 'job_status_change',
        analysis_id: randomUUID(),
        name: 'job 1',
        status: 'Completed',
        resultfolderid: '/iplant/home/nadia/analyses/job-1',
        startdate: clock - 5_000,
      };
      const at = clock;
      const first = await record({
        type: 'analysis',
        user: 'nadia@example.org',
        subject: 'job 1 completed',
        payload,
        email: true,
        email_template: 'analysis_status_change',
      });
      assert.match(first.id, uuid);
      assert.deepEqual(first.json, {
        type: 'analysis',
        user: 'nadia',
        subject: 'job 1 completed',
        seen: false,
        deleted: false,
        email: true,
        email_template: 'analysis_status_change',
        // A string of ms, as the web UI slices it (sonora src/components/notifications/NotificationsTab.js).
        message: { id: first.id, text: 'job 1 completed', timestamp: String(at) },
        payload,
        outputDir: payload.resultfolderid,
        outputManifest: [],
      });

      const second = await record({
        type: 'Tool_Request',
        user: 'nadia',
        subject: 'tool request updated',
        message: 'your tool request was approved',
        outputDir: '/elsewhere',
        outputManifest: [{ path: '/elsewhere/a.txt' }],
        payload: { toolname: 'samtools', resultfolderid: '/not/this' },
        email: false,
      });
      assert.equal(second.json.type, 'tool request', 'stored with _, listed with spaces');
      assert.equal(second.json.message.text, 'your tool request was approved');
      assert.equal(
        second.json.message.timestamp,
        String(at + 1_000),
        'the clock moved between the two',
      );
      assert.equal(
        second.json.outputDir,
        '/elsewhere',
        'a given outputDir wins over payload.resultfolderid',
      );
      assert.deepEqual(second.json.outputManifest, [{ path: '/elsewhere/a.txt' }]);
      assert.equal(second.json.email, false);
      assert.notEqual(second.id, first.id);

      const bare = await record({ type: 'data', user: 'nadia', subject: 'upload done' });
      assert.deepEqual(bare.json.payload, {});
      assert.equal(bare.json.outputDir, '', 'no payload.resultfolderid, no outputDir');
      assert.equal(bare.json.email, false);
      const exactly32 = await record({ type: 'x'.repeat(32), user: 'nadia', subject: 'long type' });
      assert.equal(exactly32.json.type, 'x'.repeat(32));

      const good = { type: 'data', user: 'nadia', subject: 'fine' };
      const cases: [Body, string][] = [
        [{ json: [good] }, 'body'],
        [{ json: 'data' }, 'body'],
        [{ json: 42 }, 'body'],
        [{ json: { user: 'nadia', subject: 's' } }, 'type'],
        [{ json: { ...good, type: '' } }, 'type'],
        [{ json: { ...good, type: '   ' } }, 'type'],
        [{ json: { ...good, type: 7 } }, 'type'],
        [{ json: { ...good, type: 'x'.repeat(33) } }, 'type'],
        [{ json: { ...good, type: 'data.upload' } }, 'type'],
        [{ json: { type: 'data', subject: 's' } }, 'user'],
        [{ json: { ...good, user: '' } }, 'user'],
        [{ json: { ...good, user: ['nadia'] } }, 'user'],
        [{ json: { type: 'data', user: 'nadia' } }, 'subject'],
        [{ json: { ...good, subject: '' } }, 'subject'],
        [{ json: { ...good, payload: [1, 2] } }, 'payload'],
        [{ json: { ...good, payload: 'x' } }, 'payload'],
        [{ json: { ...good, email: 'yes' } }, 'email'],
        [{ json: { ...good, email: 1 } }, 'email'],
        [{ json: { ...good, message: 5 } }, 'message'],
        [{ json: { ...good, outputManifest: 'a' } }, 'outputManifest'],
      ];
      for (const [body, field] of cases)
        await refused('POST', '/notification', body, 400, 'ERR_BAD_OR_MISSING_FIELD', field);
      await checkUser('nadia', 'after the refused requests');
      assert.equal(
        (await ok('GET', `/count-messages${qs({ user: 'nadia' })}`))['user-total'],
        4,
        'only the four good ones were recorded',
      );
    });

    describe('listings', () => {
      const types = ['data', 'analysis', 'tool', 'tool request'];
      before(async () => {
        if (!service) return;
        // 30 for alice over four types (spelled variously), bob's interleaved; then some seen, some deleted.
        const spellings: Record<string, string[]> = {
          'tool request': ['tool request', 'Tool_Request', 'TOOL REQUEST'],
        };
        for (let index = 0; index < 30; index++) {
          const type = types[index % types.length]!;
          const spelling =
            spellings[type]?.[index % 3] ?? (index % 5 === 0 ? type.toUpperCase() : type);
          // Subjects in an order of their own, so sorting by subject is not sorting by time.
          await record({
            type: spelling,
            user: index % 2 ? 'alice' : 'alice@example.org',
            subject: `subject${String((index * 7) % 30).padStart(2, '0')}`,
          });
          if (index % 4 === 1)
            await record({ type: types[(index + 1) % 4]!, user: 'bob', subject: `bob${index}` });
        }
        const alices = notes.filter((note) => note.user === 'alice');
        assert.equal(alices.length, 30);
        const seen = alices.filter((_, index) => index % 3 === 0 || index % 7 === 2);
        const marked = await ok('POST', `/seen${qs({ user: 'alice' })}`, {
          uuids: seen.map((note) => note.id),
        });
        for (const note of seen) note.seen = true;
        assert.deepEqual(marked, {
          success: true,
          count: alices.filter((note) => !note.seen).length,
        });
        const deleted = [alices[4]!, alices[9]!, alices[15]!, alices[22]!];
        await ok('POST', `/delete${qs({ user: 'alice' })}`, {
          uuids: deleted.map((note) => note.id),
        });
        for (const note of deleted) note.deleted = true;
        assert.ok(
          deleted.some((note) => note.seen) && deleted.some((note) => !note.seen),
          'seen and unseen ones deleted',
        );
      });

      test('the seeded data: every type, seen and unseen, deleted ones excluded', async (t) => {
        if (!service) return t.skip(skipped);
        const alices = notes.filter((note) => note.user === 'alice' && !note.deleted);
        for (const type of types) {
          assert.ok(
            alices.some((note) => note.stored === stored(type) && note.seen),
            `a seen ${type}`,
          );
          assert.ok(
            alices.some((note) => note.stored === stored(type) && !note.seen),
            `an unseen ${type}`,
          );
        }
        assert.equal(
          new Set(alices.map((note) => note.timestamp)).size,
          alices.length,
          'distinct timestamps',
        );
        await checkUser('alice', 'seeded');
        await checkUser('bob', 'seeded');
        const all = await ok('GET', `/messages${qs({ user: 'alice' })}`);
        assert.ok(
          all.messages.every(
            (message: any) => message.user === 'alice' && message.deleted === false,
          ),
        );
        assert.deepEqual(
          [...new Set(all.messages.map((message: any) => message.type))].sort(),
          [...types].sort(),
          'types are listed with spaces, whatever the spelling they were sent with',
        );
      });

      test('GET /messages: every combination of limit, offset, seen, sort direction and filter', async (t) => {
        if (!service) return t.skip(skipped);
        const combinations: {
          limit: number;
          offset: number;
          seen?: boolean;
          sortDir?: string;
          filter?: string;
          spelling: string;
        }[] = [];
        const dirSpellings = ['sort_dir', 'sort-dir', 'sortDir'];
        for (const limit of [0, 1, 7, 100])
          for (const offset of [0, 3, 29, 40])
            for (const seen of [undefined, true, false])
              for (const sortDir of [undefined, 'asc', 'desc', 'ASC'])
                for (const filter of [
                  undefined,
                  'data',
                  'analysis',
                  'Tool Request',
                  'tool_request',
                  'new',
                ])
                  combinations.push({
                    limit,
                    offset,
                    seen,
                    sortDir,
                    filter,
                    spelling: dirSpellings[combinations.length % 3]!,
                  });
        assert.equal(combinations.length, 4 * 4 * 3 * 4 * 6);
        let nonEmpty = 0;
        for (let start = 0; start < combinations.length; start += 16) {
          await Promise.all(
            combinations.slice(start, start + 16).map(async ({ spelling, ...options }) => {
              const url = `/messages${qs({ user: 'alice', limit: options.limit, offset: options.offset, seen: options.seen, [spelling]: options.sortDir, filter: options.filter })}`;
              const answer = await ok('GET', url);
              const expected = expectedListing(notes, 'alice', options);
              assert.deepEqual(
                answer.messages.map((message: any) => message.message.id),
                expected.ids,
                url,
              );
              assert.equal(answer.total, expected.total, `${url}: total`);
              assert.equal(answer.unseen_total, expected.unseen_total, `${url}: unseen_total`);
              if (expected.ids.length > 0) nonEmpty++;
            }),
          );
        }
        assert.ok(nonEmpty > combinations.length / 3, 'most combinations list something');
      });

      test('sort field and direction in their three spellings; bad values are 400', async (t) => {
        if (!service) return t.skip(skipped);
        const spellings = [
          ['sort_field', 'sort_dir'],
          ['sort-field', 'sort-dir'],
          ['sortField', 'sortDir'],
        ];
        for (const [fieldName, dirName] of spellings)
          for (const sortField of ['timestamp', 'date_created', 'uuid', 'subject', 'SUBJECT'])
            for (const sortDir of ['asc', 'desc', 'Desc']) {
              const url = `/messages${qs({ user: 'alice', [fieldName!]: sortField, [dirName!]: sortDir, limit: 10, offset: 2 })}`;
              const answer = await ok('GET', url);
              const expected = expectedListing(notes, 'alice', {
                sortField,
                sortDir,
                limit: 10,
                offset: 2,
              });
              assert.deepEqual(
                answer.messages.map((message: any) => message.message.id),
                expected.ids,
                url,
              );
              assert.deepEqual(answer.messages, expected.page.map(current), url);
            }
        const bySubject = (
          await ok(
            'GET',
            `/messages${qs({ user: 'alice', sort_field: 'subject', sort_dir: 'asc' })}`,
          )
        ).messages.map((m: any) => m.subject);
        const byTime = (
          await ok('GET', `/messages${qs({ user: 'alice', sort_dir: 'asc' })}`)
        ).messages.map((m: any) => m.subject);
        assert.deepEqual(bySubject, [...byTime].sort(byString));
        assert.notDeepEqual(bySubject, byTime, 'the subject order differs from the time order');

        for (const [name, value] of [
          ['sort_field', 'bogus'],
          ['sort-field', 'time'],
          ['sort_dir', 'sideways'],
          ['sortDir', 'up'],
          ['limit', '-1'],
          ['limit', 'abc'],
          ['limit', '1.5'],
          ['offset', '-3'],
          ['seen', 'maybe'],
        ] as const) {
          await refused(
            'GET',
            `/messages${qs({ user: 'alice', [name]: value })}`,
            undefined,
            400,
            'ERR_BAD_QUERY_PARAMETER',
            name.replace(/-/g, '_').replace('sortDir', 'sort_dir'),
          );
        }
        await refused(
          'GET',
          `/messages${qs({ limit: 5 })}`,
          undefined,
          400,
          'ERR_MISSING_QUERY_PARAMETER',
          'user',
        );
        await refused(
          'GET',
          '/unseen-messages',
          undefined,
          400,
          'ERR_MISSING_QUERY_PARAMETER',
          'user',
        );
        await refused(
          'GET',
          `/count-messages${qs({ seen: 'true' })}`,
          undefined,
          400,
          'ERR_MISSING_QUERY_PARAMETER',
          'user',
        );
        await refused(
          'GET',
          `/count-messages${qs({ user: 'alice', seen: 'yes' })}`,
          undefined,
          400,
          'ERR_BAD_QUERY_PARAMETER',
          'seen',
        );
      });

      test('/unseen-messages ascending; /count-messages for seen and filter', async (t) => {
        if (!service) return t.skip(skipped);
        for (const user of ['alice', 'bob', 'alice@example.org']) {
          const short = user.split('@')[0]!;
          const answer = await ok('GET', `/unseen-messages${qs({ user })}`);
          const unseen = notes
            .filter((note) => note.user === short && !note.deleted && !note.seen)
            .sort((a, b) => a.timestamp - b.timestamp);
          assert.ok(unseen.length > 0);
          assert.deepEqual(
            answer.messages.map((message: any) => message.message.id),
            unseen.map((note) => note.id),
            user,
          );
          assert.ok(answer.messages.every((message: any) => message.seen === false));
          const times = answer.messages.map((message: any) => Number(message.message.timestamp));
          assert.deepEqual(
            times,
            [...times].sort((a: number, b: number) => a - b),
            'ascending by time',
          );
          assert.equal(answer.total, unseen.length);
        }
        for (const seen of [undefined, true, false])
          for (const filter of [
            undefined,
            'data',
            'analysis',
            'tool',
            'Tool Request',
            'TOOL_REQUEST',
            'new',
            'nothing-of-this-type',
          ]) {
            const url = `/count-messages${qs({ user: 'alice', seen, filter })}`;
            const answer = await ok('GET', url);
            assert.equal(
              answer['user-total'],
              expectedListing(notes, 'alice', { seen, filter }).total,
              url,
            );
            assert.deepEqual(Object.keys(answer).sort(), [
              'system-total',
              'system-total-new',
              'system-total-unseen',
              'user-total',
            ]);
          }
        assert.deepEqual(
          await ok('GET', `/messages${qs({ user: 'nobody' })}`),
          { messages: [], total: 0, unseen_total: 0 },
          'an unknown user has nothing',
        );
        assert.equal(
          (await ok('GET', `/count-messages${qs({ user: 'nobody' })}`))['user-total'],
          0,
        );
      });
    });

    test('notifications recorded within one millisecond list in the order they came', async (t) => {
      if (!service) return t.skip(skipped);
      const user = 'orla';
      const subjects = ['Submitted', 'Running', 'Completed'];
      // The clock stands still: a job's status changes recorded back to back share its millisecond.
      const sent = [];
      for (const subject of subjects)
        sent.push(
          (await ok('POST', '/notification', { type: 'analysis', user, subject })).notification,
        );
      const times = sent.map((json) => Number(json.message.timestamp));
      assert.ok(
        times[0]! < times[1]! && times[1]! < times[2]!,
        `creation times increase: ${times}`,
      );
      const listed = await ok('GET', `/messages?user=${user}&sort-dir=asc`);
      assert.deepEqual(
        listed.messages.map((n: { message: { text: string } }) => n.message.text),
        subjects,
      );
      tick(1_000);
    });

    test('seen, mark-all-seen, delete and delete-all: counts still unseen, users kept apart', async (t) => {
      if (!service) return t.skip(skipped);
      const [carol, dave] = ['carol', 'dave'];
      const types = ['data', 'analysis', 'tool', 'tool_request'];
      for (let index = 0; index < 16; index++)
        await record({ type: types[index % 4]!, user: carol, subject: `c${index}` });
      for (let index = 0; index < 6; index++)
        await record({ type: types[index % 4]!, user: dave, subject: `d${index}` });
      const mine = (user: string) => notes.filter((note) => note.user === user);
      const unseenOf = (user: string) =>
        mine(user).filter((note) => !note.deleted && !note.seen).length;
      const check = async (label: string) => {
        assert.equal(await checkUser(carol, label), unseenOf(carol));
        assert.equal(await checkUser(dave, label), unseenOf(dave));
      };
      const [c, d] = [mine(carol), mine(dave)];
      await check('seeded');

      // seen: some of carol's (one in upper case), an unknown id and one of dave's.
      let answer = await ok('POST', `/seen${qs({ user: carol })}`, {
        uuids: [c[0]!.id, c[1]!.id.toUpperCase(), c[5]!.id, randomUUID(), d[0]!.id],
      });
      for (const note of [c[0]!, c[1]!, c[5]!]) note.seen = true;
      assert.deepEqual(answer, { success: true, count: unseenOf(carol) });
      assert.equal(answer.count, 13);
      await check('carol saw three');
      assert.equal(d[0]!.seen, false, "dave's message was not carol's to mark");

      // Marking again changes nothing; an empty list changes nothing.
      assert.deepEqual(await ok('POST', `/seen${qs({ user: carol })}`, { uuids: [c[0]!.id] }), {
        success: true,
        count: 13,
      });
      assert.deepEqual(await ok('POST', `/seen${qs({ user: carol })}`, { uuids: [] }), {
        success: true,
        count: 13,
      });

      // dave can neither mark nor delete carol's.
      assert.deepEqual(
        await ok('POST', `/seen${qs({ user: dave })}`, { uuids: [c[2]!.id, c[3]!.id] }),
        { success: true, count: unseenOf(dave) },
      );
      assert.deepEqual(
        await ok('POST', `/delete${qs({ user: dave })}`, { uuids: [c[2]!.id, c[0]!.id] }),
        { success: true, count: unseenOf(dave) },
      );
      await check('dave tried carol’s');

      // delete: an unseen one, a seen one, dave's, an unknown one.
      answer = await ok('POST', `/delete${qs({ user: carol })}`, {
        uuids: [c[2]!.id, c[0]!.id, d[1]!.id, randomUUID()],
      });
      c[2]!.deleted = true;
      c[0]!.deleted = true;
      assert.deepEqual(answer, { success: true, count: unseenOf(carol) });
      assert.equal(answer.count, 12, 'the deleted unseen one no longer counts');
      await check('carol deleted two');
      const listed = (await ok('GET', `/messages${qs({ user: carol })}`)).messages.map(
        (message: any) => message.message.id,
      );
      assert.ok(
        !listed.includes(c[2]!.id) && !listed.includes(c[0]!.id),
        'deleted ones are not listed',
      );
      // A deleted one is not marked seen any more.
      assert.deepEqual(await ok('POST', `/seen${qs({ user: carol })}`, { uuids: [c[2]!.id] }), {
        success: true,
        count: 12,
      });
      await check('seen on a deleted one');

      // delete-all with a filter (a type, and a type with seen), then `new`.
      answer = await ok('DELETE', `/delete-all${qs({ user: carol, filter: 'data' })}`);
      for (const note of c) if (note.stored === 'data') note.deleted = true;
      assert.deepEqual(answer, { success: true, count: unseenOf(carol) });
      await check('delete-all data');
      answer = await ok(
        'DELETE',
        `/delete-all${qs({ user: carol, filter: 'Tool Request', seen: 'true' })}`,
      );
      for (const note of c) if (note.stored === 'tool_request' && note.seen) note.deleted = true;
      assert.deepEqual(answer, { success: true, count: unseenOf(carol) });
      await check('delete-all seen tool requests');
      await ok('POST', `/seen${qs({ user: carol })}`, { uuids: [c[6]!.id] });
      c[6]!.seen = true;
      answer = await ok('DELETE', `/delete-all${qs({ user: carol, filter: 'new' })}`);
      for (const note of c) if (!note.seen) note.deleted = true;
      assert.deepEqual(answer, { success: true, count: 0 }, 'every unseen one is gone');
      assert.ok(
        c.some((note) => !note.deleted),
        'the seen ones remain',
      );
      await check('delete-all new');

      // mark-all-seen names its user in the body (the short form of a qualified name).
      assert.ok(unseenOf(dave) > 0);
      answer = await ok('POST', '/mark-all-seen', { user: 'dave@example.org' });
      for (const note of d) if (!note.deleted) note.seen = true;
      assert.deepEqual(answer, { success: true, count: 0 });
      await check('dave marked all seen');
      const later = await record({ type: 'data', user: carol, subject: 'later' });
      assert.deepEqual(await ok('POST', '/mark-all-seen', { user: carol }), {
        success: true,
        count: 0,
      });
      later.seen = true;
      await check('carol marked all seen');

      // delete-all without a filter: carol has nothing left, dave keeps his.
      answer = await ok('DELETE', `/delete-all${qs({ user: carol })}`);
      for (const note of mine(carol)) note.deleted = true;
      assert.deepEqual(answer, { success: true, count: 0 });
      assert.deepEqual(await ok('GET', `/messages${qs({ user: carol })}`), {
        messages: [],
        total: 0,
        unseen_total: 0,
      });
      await check('carol deleted all');
      assert.ok((await ok('GET', `/messages${qs({ user: dave })}`)).total > 0);

      // Unknown users: nothing to do, count 0.
      assert.deepEqual(await ok('POST', `/seen${qs({ user: 'nobody' })}`, { uuids: [d[2]!.id] }), {
        success: true,
        count: 0,
      });
      assert.deepEqual(await ok('DELETE', `/delete-all${qs({ user: 'nobody' })}`), {
        success: true,
        count: 0,
      });
      await check('unknown users');

      // Bad bodies and missing users.
      for (const route of ['/seen', '/delete']) {
        for (const body of [
          { json: { uuids: d[2]!.id } },
          { json: {} },
          { json: { uuids: [1] } },
          { json: [d[2]!.id] },
          { json: { uuids: null } },
        ] as Body[]) {
          await refused(
            'POST',
            `${route}${qs({ user: dave })}`,
            body,
            400,
            'ERR_BAD_OR_MISSING_FIELD',
            'uuids',
          );
        }
        await refused(
          'POST',
          route,
          { json: { uuids: [] } },
          400,
          'ERR_MISSING_QUERY_PARAMETER',
          'user',
        );
      }
      await refused(
        'POST',
        '/mark-all-seen',
        { json: {} },
        400,
        'ERR_MISSING_QUERY_PARAMETER',
        'user',
      );
      await refused('DELETE', '/delete-all', undefined, 400, 'ERR_MISSING_QUERY_PARAMETER', 'user');
      await refused(
        'DELETE',
        `/delete-all${qs({ user: dave, seen: 'sometimes' })}`,
        undefined,
        400,
        'ERR_BAD_QUERY_PARAMETER',
        'seen',
      );
      await check('after the refused requests');
    });

    test('system messages: activation windows, per-user states, admin routes', async (t) => {
      if (!service) return t.skip(skipped);
      interface SystemMessage {
        uuid: string;
        type: string;
        message: string;
        date_created: number;
        activation_date: number;
        deactivation_date: number;
        dismissible: boolean;
        logins_disabled: boolean;
      }
      const model: SystemMessage[] = [];
      const states = new Map<string, number>(); // `${user} ${uuid}` → 1 received, 2 seen, 3 dismissed
      const stateOf = (user: string, message: SystemMessage) =>
        states.get(`${user} ${message.uuid}`) ?? 0;
      const active = (message: SystemMessage) =>
        message.activation_date <= clock && clock < message.deactivation_date;
      const visible = (user: string, below: number) =>
        model
          .filter((message) => active(message) && stateOf(user, message) < below)
          .sort((a, b) => b.activation_date - a.activation_date || byString(a.uuid, b.uuid))
          .map((message) => ({ ...message, acknowledged: stateOf(user, message) >= 2 }));
      /** Raises states as the agent does: never lowers, only existing messages, dismissals only of dismissible ones. */
      const raise = (
        user: string,
        state: number,
        which: SystemMessage[],
        onlyDismissible = false,
      ) => {
        for (const message of which) {
          if (onlyDismissible && !message.dismissible) continue;
          if (stateOf(user, message) < state) states.set(`${user} ${message.uuid}`, state);
        }
        return { count: visible(user, state).length };
      };
      const check = async (label: string) => {
        for (const user of ['alice', 'bob']) {
          assert.deepEqual(
            await ok('GET', `/system/messages${qs({ user })}`),
            { 'system-messages': visible(user, 3) },
            `${label}: ${user}'s messages`,
          );
          assert.deepEqual(
            await ok('GET', `/system/new-messages${qs({ user })}`),
            { 'system-messages': visible(user, 1) },
            `${label}: ${user}'s new messages`,
          );
          assert.deepEqual(
            await ok('GET', `/system/unseen-messages${qs({ user })}`),
            { 'system-messages': visible(user, 2) },
            `${label}: ${user}'s unseen messages`,
          );
          const counts = await ok('GET', `/count-messages${qs({ user })}`);
          assert.deepEqual(
            {
              total: counts['system-total'],
              new: counts['system-total-new'],
              unseen: counts['system-total-unseen'],
            },
            {
              total: visible(user, 3).length,
              new: visible(user, 1).length,
              unseen: visible(user, 2).length,
            },
            `${label}: ${user}'s counts`,
          );
        }
      };
      /** A date as the agent reads it: ms, a string of digits, or ISO 8601. */
      const ms = (value: unknown) =>
        typeof value === 'string' && !/^\d+$/.test(value) ? Date.parse(value) : Number(value);
      const create = async (body: Record<string, unknown>) => {
        const created = (await ok('PUT', '/admin/system', body))[
          'system-notification'
        ] as SystemMessage;
        const expected = {
          uuid: created.uuid,
          type: String(body.type).toLowerCase(),
          message: body.message,
          date_created: clock,
          activation_date: body.activation_date === undefined ? clock : ms(body.activation_date),
          deactivation_date: ms(body.deactivation_date),
          dismissible: body.dismissible ?? false,
          logins_disabled: body.logins_disabled ?? false,
        };
        assert.match(created.uuid, uuid);
        assert.deepEqual(created, expected);
        model.push(created);
        tick(10);
        return created;
      };

      assert.deepEqual(await ok('GET', '/admin/system-types'), {
        types: ['announcement', 'maintenance', 'warning'],
      });
      await check('none yet');

      // Validation.
      const valid = { type: 'announcement', message: 'hello', deactivation_date: clock + 60_000 };
      const bad: [Record<string, unknown> | unknown[], string][] = [
        [[valid], 'body'],
        [{ message: 'hello', deactivation_date: clock + 60_000 }, 'type'],
        [{ ...valid, type: 'gossip' }, 'type'],
        [{ type: 'warning', deactivation_date: clock + 60_000 }, 'message'],
        [{ ...valid, message: ' ' }, 'message'],
        [{ type: 'warning', message: 'hello' }, 'deactivation_date'],
        [{ ...valid, deactivation_date: 'tomorrow' }, 'deactivation_date'],
        [{ ...valid, activation_date: clock + 70_000 }, 'deactivation_date'],
        [{ ...valid, activation_date: clock + 60_000 }, 'deactivation_date'],
        [
          { ...valid, activation_date: clock - 120_000, deactivation_date: clock - 1_000 },
          'deactivation_date',
        ],
        [{ ...valid, deactivation_date: clock }, 'deactivation_date'],
        [{ ...valid, dismissible: 'yes' }, 'dismissible'],
      ];
      for (const [body, field] of bad)
        await refused(
          'PUT',
          '/admin/system',
          { json: body },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
          field,
        );
      assert.deepEqual(
        await ok('GET', '/admin/system'),
        { 'system-messages': [], total: 0 },
        'nothing was created',
      );

      // Three messages: one in a minute, one now (ISO dates accepted), one in ten seconds.
      const start = clock;
      const later = await create({
        type: 'announcement',
        message: 'coming soon',
        activation_date: start + 60_000,
        deactivation_date: start + 600_000,
        dismissible: true,
      });
      const now = await create({
        type: 'Warning',
        message: 'careful',
        deactivation_date: new Date(start + 300_000).toISOString(),
      });
      assert.equal(now.deactivation_date, start + 300_000);
      const soon = await create({
        type: 'maintenance',
        message: 'down tonight',
        activation_date: String(start + 10_000),
        deactivation_date: start + 900_000,
        dismissible: true,
        logins_disabled: true,
      });
      await check('created');
      assert.equal(visible('alice', 3).length, 1, 'only the one active now is listed');

      tick(10_000);
      await check('the maintenance message is active');
      assert.equal(visible('alice', 3).length, 2);

      // alice sees the warning, then receiving it does not lower it.
      assert.deepEqual(
        await ok('POST', `/system/seen${qs({ user: 'alice' })}`, { uuids: [now.uuid] }),
        raise('alice', 2, [now]),
      );
      await check('alice saw the warning');
      assert.deepEqual(
        await ok('POST', `/system/received${qs({ user: 'alice' })}`, {
          uuids: [now.uuid.toUpperCase(), soon.uuid, randomUUID()],
        }),
        raise('alice', 1, [now, soon]),
      );
      assert.equal(stateOf('alice', now), 2, 'still seen');
      await check('alice received both');
      const listed = await ok('GET', `/system/messages${qs({ user: 'alice' })}`);
      assert.deepEqual(
        listed['system-messages'].map((message: any) => [message.uuid, message.acknowledged]),
        [
          [soon.uuid, false],
          [now.uuid, true],
        ],
      );

      // The future one appears when the clock passes its activation; bob has never touched anything.
      tick(50_000);
      await check('all three active');
      assert.equal(visible('bob', 1).length, 3);

      // Dismissing: only dismissible ones; the answer is how many are still active for alice.
      assert.deepEqual(
        await ok('POST', `/system/delete${qs({ user: 'alice' })}`, {
          uuids: [now.uuid, later.uuid],
        }),
        raise('alice', 3, [now, later], true),
      );
      assert.equal(stateOf('alice', now), 2, 'the warning is not dismissible');
      assert.equal(stateOf('alice', later), 3);
      await check('alice dismissed the announcement');
      // Nothing lowers a dismissal.
      assert.deepEqual(
        await ok('POST', `/system/seen${qs({ user: 'alice' })}`, { uuids: [later.uuid] }),
        raise('alice', 2, [later]),
      );
      assert.deepEqual(
        await ok('POST', `/system/received${qs({ user: 'alice' })}`, { uuids: [later.uuid] }),
        raise('alice', 1, [later]),
      );
      assert.equal(stateOf('alice', later), 3);
      await check('still dismissed');

      // bob: mark-all-received then mark-all-seen, named in the body.
      assert.deepEqual(
        await ok('POST', '/system/mark-all-received', { user: 'bob' }),
        raise('bob', 1, model.filter(active)),
      );
      assert.deepEqual(await ok('POST', '/system/mark-all-received', { user: 'bob' }), {
        count: 0,
      });
      await check('bob received all');
      assert.deepEqual(
        await ok('POST', '/system/mark-all-seen', { user: 'bob@example.org' }),
        raise('bob', 2, model.filter(active)),
      );
      await check('bob saw all');
      // alice: delete-all dismisses the dismissible ones only.
      assert.deepEqual(
        await ok('DELETE', `/system/delete-all${qs({ user: 'alice' })}`),
        raise('alice', 3, model.filter(active), true),
      );
      assert.deepEqual(
        visible('alice', 3).map((message) => message.uuid),
        [now.uuid],
        'the warning stays',
      );
      await check('alice dismissed all she could');
      assert.deepEqual(
        await ok('POST', '/system/mark-all-seen', { user: 'alice' }),
        raise('alice', 2, model.filter(active)),
      );
      await check('alice saw all');

      // Unknown ids and empty lists change nothing; bad bodies are 400.
      assert.deepEqual(
        await ok('POST', `/system/seen${qs({ user: 'bob' })}`, { uuids: [randomUUID()] }),
        { count: visible('bob', 2).length },
      );
      assert.deepEqual(await ok('POST', `/system/delete${qs({ user: 'bob' })}`, { uuids: [] }), {
        count: visible('bob', 3).length,
      });
      for (const route of ['/system/received', '/system/seen', '/system/delete']) {
        await refused(
          'POST',
          `${route}${qs({ user: 'bob' })}`,
          { json: { uuids: now.uuid } },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
          'uuids',
        );
        await refused(
          'POST',
          `${route}${qs({ user: 'bob' })}`,
          { json: {} },
          400,
          'ERR_BAD_OR_MISSING_FIELD',
          'uuids',
        );
        await refused(
          'POST',
          route,
          { json: { uuids: [] } },
          400,
          'ERR_MISSING_QUERY_PARAMETER',
          'user',
        );
      }
      await refused(
        'POST',
        '/system/mark-all-seen',
        { json: {} },
        400,
        'ERR_MISSING_QUERY_PARAMETER',
        'user',
      );
      await refused(
        'GET',
        '/system/messages',
        undefined,
        400,
        'ERR_MISSING_QUERY_PARAMETER',
        'user',
      );
      await check('after unknown ids and refusals');

      // An update is news again: every user's state of it is reset to unreceived, even a dismissal.
      tick(1_000);
      const updated = await ok('POST', `/admin/system/${soon.uuid}`, {
        message: 'down tonight, for longer',
        deactivation_date: start + 1_200_000,
      });
      Object.assign(soon, {
        message: 'down tonight, for longer',
        deactivation_date: start + 1_200_000,
      });
      assert.deepEqual(updated, { 'system-notification': soon }, 'the other fields are kept');
      for (const user of ['alice', 'bob']) states.delete(`${user} ${soon.uuid}`);
      await check('after the update');
      assert.equal(visible('alice', 1)[0]?.uuid, soon.uuid, 'alice has it as new again');
      assert.deepEqual(await ok('GET', `/admin/system/${soon.uuid}`), {
        'system-notification': soon,
      });
      await refused(
        'POST',
        `/admin/system/${soon.uuid}`,
        { json: { deactivation_date: clock - 1 } },
        400,
        'ERR_BAD_OR_MISSING_FIELD',
        'deactivation_date',
      );
      await refused(
        'POST',
        `/admin/system/${soon.uuid}`,
        { json: { type: 'gossip' } },
        400,
        'ERR_BAD_OR_MISSING_FIELD',
        'type',
      );
      await refused(
        'POST',
        `/admin/system/${randomUUID()}`,
        { json: { message: 'x' } },
        404,
        'ERR_NOT_FOUND',
      );
      await refused('GET', `/admin/system/${randomUUID()}`, undefined, 404, 'ERR_NOT_FOUND');
      await refused('DELETE', `/admin/system/${randomUUID()}`, undefined, 404, 'ERR_NOT_FOUND');
      assert.deepEqual(
        await ok('GET', `/admin/system/${soon.uuid}`),
        { 'system-notification': soon },
        'refused updates changed nothing',
      );

      // The admin listing: newest first, active-only, type, paging, total.
      const adminList = async (query: {
        'active-only'?: boolean;
        type?: string;
        limit?: number;
        offset?: number;
      }) => {
        const url = `/admin/system${qs(query)}`;
        const matching = model
          .filter(
            (message) =>
              (!query['active-only'] || active(message)) &&
              (query.type === undefined || message.type === query.type.toLowerCase()),
          )
          .sort((a, b) => b.date_created - a.date_created || byString(a.uuid, b.uuid));
        const offset = query.offset ?? 0;
        const page = query.limit
          ? matching.slice(offset, offset + query.limit)
          : matching.slice(offset);
        assert.deepEqual(
          await ok('GET', url),
          { 'system-messages': page, total: matching.length },
          url,
        );
      };
      const adminChecks = async () => {
        for (const activeOnly of [undefined, true, false])
          for (const type of [undefined, 'warning', 'MAINTENANCE', 'announcement'])
            for (const [limit, offset] of [
              [undefined, undefined],
              [1, 0],
              [2, 1],
              [0, 2],
              [5, 5],
            ] as const)
              await adminList({ 'active-only': activeOnly, type, limit, offset });
      };
      await adminChecks();
      await refused(
        'GET',
        `/admin/system${qs({ 'active-only': 'perhaps' })}`,
        undefined,
        400,
        'ERR_BAD_QUERY_PARAMETER',
        'active-only',
      );
      await refused(
        'GET',
        `/admin/system${qs({ limit: 'x' })}`,
        undefined,
        400,
        'ERR_BAD_QUERY_PARAMETER',
        'limit',
      );

      // The warning ends; then the announcement; the maintenance message is deleted.
      tick(start + 300_000 - clock);
      assert.ok(!active(now));
      await check('the warning ended');
      await adminChecks();
      tick(start + 600_000 - clock);
      assert.ok(!active(later));
      await check('the announcement ended');
      const deleted = await ok('DELETE', `/admin/system/${soon.uuid}`);
      assert.deepEqual(deleted, { 'system-notification': soon });
      model.splice(model.indexOf(soon), 1);
      await refused('GET', `/admin/system/${soon.uuid}`, undefined, 404, 'ERR_NOT_FOUND');
      await check('the maintenance message was deleted');
      await adminChecks();
      assert.equal((await ok('GET', `/count-messages${qs({ user: 'alice' })}`))['system-total'], 0);
      // Leave nothing behind for the stream test's counts.
      for (const message of model.splice(0)) await ok('DELETE', `/admin/system/${message.uuid}`);
      assert.deepEqual(await ok('GET', '/admin/system'), { 'system-messages': [], total: 0 });
    });

    test('GET /stream: counts, new notifications, count changes, heartbeats, Last-Event-ID replay', async (t) => {
      if (!service) return t.skip(skipped);
      const user = 'erin';
      const streams: EventStream[] = [];
      const open = async (lastEventId?: string) => {
        const stream = await EventStream.open(service!.port, user, lastEventId);
        streams.push(stream);
        assert.equal(stream.status, 200);
        assert.match(String(stream.headers['content-type']), /^text\/event-stream/);
        return stream;
      };
      const expectedCounts = async () => {
        const counts = await ok('GET', `/count-messages${qs({ user })}`);
        return {
          ...counts,
          'user-unseen': await ok('GET', `/count-messages${qs({ user, seen: 'false' })}`).then(
            (c) => c['user-total'],
          ),
        };
      };
      try {
        // One active system message, so the system counts are not all zero.
        const system = (
          await ok('PUT', '/admin/system', {
            type: 'announcement',
            message: 'stream me',
            deactivation_date: clock + 3_600_000,
          })
        )['system-notification'];
        const first = await record({ type: 'data', user, subject: 'e1' });
        const second = await record({ type: 'analysis', user, subject: 'e2' });

        const stream = await open();
        const retry = await stream.next('retry', (frame) => frame.retry !== undefined);
        assert.equal(retry.frame.retry, '5000');
        const opening = await stream.event('counts', 'the first counts');
        assert.deepEqual(JSON.parse(opening.frame.data!), await expectedCounts());
        assert.deepEqual(JSON.parse(opening.frame.data!), {
          'user-total': 2,
          'user-unseen': 2,
          'system-total': 1,
          'system-total-new': 1,
          'system-total-unseen': 1,
        });
        assert.ok(
          opening.skipped.every((frame) => frame.event === undefined),
          'no event before the first counts',
        );

        // bob's notification is not erin's; erin's arrives with its id and the unseen total.
        const bobs = await record({ type: 'data', user: 'bob', subject: 'not for erin' });
        const third = await record({
          type: 'tool',
          user,
          subject: 'e3',
          payload: { toolname: 'x' },
        });
        const arrived = await stream.event('notification', 'erin’s notification');
        assert.equal(arrived.frame.id, third.id);
        assert.deepEqual(JSON.parse(arrived.frame.data!), { total: 3, message: third.json });
        for (const frame of [...stream.frames])
          assert.ok(
            !frame.data?.includes(bobs.id) && frame.id !== bobs.id,
            'bob’s notification never reaches erin',
          );
        const afterThird = await stream.event(
          'counts',
          'the counts after a new notification',
          (data) => data['user-total'] === 3,
        );
        assert.deepEqual(JSON.parse(afterThird.frame.data!), await expectedCounts());
        assert.equal(JSON.parse(afterThird.frame.data!)['user-unseen'], 3);

        // Marks move the counts.
        assert.deepEqual(await ok('POST', `/seen${qs({ user })}`, { uuids: [first.id] }), {
          success: true,
          count: 2,
        });
        first.seen = true;
        const afterSeen = await stream.event(
          'counts',
          'the counts after seen',
          (data) => data['user-unseen'] === 2,
        );
        assert.deepEqual(JSON.parse(afterSeen.frame.data!), await expectedCounts());
        assert.equal(JSON.parse(afterSeen.frame.data!)['user-total'], 3);
        assert.deepEqual(
          await ok('POST', `/system/seen${qs({ user })}`, { uuids: [system.uuid] }),
          { count: 0 },
        );
        const afterSystem = await stream.event(
          'counts',
          'the counts after a system message was seen',
          (data) => data['system-total-unseen'] === 0,
        );
        assert.deepEqual(JSON.parse(afterSystem.frame.data!), await expectedCounts());
        assert.equal(JSON.parse(afterSystem.frame.data!)['system-total'], 1);

        // Heartbeats (every 200 ms here).
        const heartbeat = await stream.next('a heartbeat', (frame) => frame.comment !== undefined);
        assert.equal(heartbeat.frame.comment, 'heartbeat');
        assert.equal(heartbeat.frame.event, undefined);
        // A system message that ends with time (not an event) is caught by the heartbeat's recount.
        tick(3_600_000);
        const ended = await stream.event(
          'counts',
          'the counts after the system message ended',
          (data) => data['system-total'] === 0,
        );
        assert.deepEqual(JSON.parse(ended.frame.data!), await expectedCounts());
        stream.close();

        // Reconnecting after e1 replays e2 and e3, in order, then the counts.
        const fourth = await record({ type: 'data', user, subject: 'e4' });
        const replay = await open(first.id.toUpperCase());
        const replayed: Frame[] = [];
        for (const note of [second, third, fourth])
          replayed.push(
            (await replay.event('notification', `the replay of ${note.subject}`)).frame,
          );
        assert.deepEqual(
          replayed.map((frame) => frame.id),
          [second.id, third.id, fourth.id],
        );
        assert.deepEqual(JSON.parse(replayed[2]!.data!), { total: 3, message: fourth.json });
        assert.deepEqual(JSON.parse(replayed[0]!.data!).message, second.json);
        const replayCounts = await replay.event('counts', 'the counts after the replay');
        assert.deepEqual(JSON.parse(replayCounts.frame.data!), await expectedCounts());
        assert.ok(
          replayCounts.skipped.every((frame) => frame.event !== 'notification'),
          'nothing else was replayed',
        );
        replay.close();

        // Nothing to replay after the newest; an unknown or someone else's id replays nothing.
        for (const lastEventId of [fourth.id, randomUUID(), bobs.id]) {
          const again = await open(lastEventId);
          const counts = await again.event('counts', 'the counts');
          assert.ok(
            counts.skipped.every((frame) => frame.event === undefined),
            `no replay after ${lastEventId}: ${JSON.stringify(counts.skipped)}`,
          );
          again.close();
        }

        // A missing user is refused before any stream.
        await refused('GET', '/stream', undefined, 400, 'ERR_MISSING_QUERY_PARAMETER', 'user');
        await ok('DELETE', `/admin/system/${system.uuid}`);
      } finally {
        for (const stream of streams) stream.close();
      }
    });
  });
}
