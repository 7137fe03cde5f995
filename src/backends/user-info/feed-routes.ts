// The dashboard's feeds (routes.md §23): platform news, events and videos, posted and deleted by
// administrators (the gateway checks that; this service trusts its caller) and read by everyone
// through the dashboard, newest first.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { countParam } from '../../common/query-params.ts';
import { parseJsonText } from '../../common/request-body.ts';
import { gatewayError } from '../../common/errors.ts';
import type { Store } from '../../store/database.ts';

export const feedNames = ['news', 'events', 'videos'] as const;
type FeedName = (typeof feedNames)[number];

const badField = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

function text(body: Record<string, unknown>, field: string, required: boolean): string {
  const value = body[field];
  if (value === undefined || value === null) {
    if (required) throw badField(field, `body field "${field}" is required`);
    return '';
  }
  if (typeof value !== 'string' || (required && value.trim() === ''))
    throw badField(field, `body field "${field}" must be a${required ? ' non-empty' : ''} string`);
  if (value.length > 10_000) throw badField(field, `body field "${field}" is too long`);
  return value;
}

/** A link must be http(s) or absent: a feed is shown as links on every user's home page. */
function link(body: Record<string, unknown>): string {
  const value = text(body, 'link', false);
  if (value !== '' && !/^https?:\/\/\S+$/i.test(value))
    throw badField('link', 'body field "link" must be an http or https URL');
  return value;
}

function publicationDate(body: Record<string, unknown>, now: number): number {
  const value = body.publication_date;
  if (value === undefined || value === null) return now;
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms))
    throw badField('publication_date', 'body field "publication_date" must be an ISO 8601 date');
  return ms;
}

type FeedRow = {
  id: string;
  feed: string;
  title: string;
  link: string;
  description: string;
  author: string;
  publication_date: number;
  date_added: number;
};

const describe = (row: FeedRow) => ({
  id: row.id,
  feed: row.feed,
  title: row.title,
  link: row.link,
  description: row.description,
  author: row.author,
  publication_date: new Date(Number(row.publication_date)).toISOString(),
  date_added: new Date(Number(row.date_added)).toISOString(),
});

export function registerFeedRoutes(app: FastifyInstance, store: Store): void {
  const db = store.db;

  /** Each feed's newest `limit` items: one query per feed, three in all. */
  app.get('/feeds', async (request) => {
    const limit = Math.min(countParam(request.query, 'limit', 8), 100);
    const lists = await Promise.all(
      feedNames.map((feed) =>
        db
          .selectFrom('dashboard_feed_items')
          .selectAll()
          .where('feed', '=', feed)
          .orderBy('publication_date', 'desc')
          .orderBy('id')
          .limit(limit)
          .execute(),
      ),
    );
    return Object.fromEntries(feedNames.map((feed, index) => [feed, lists[index]!.map(describe)]));
  });

  app.post<{ Params: { feed: string } }>('/feeds/:feed', async (request) => {
    const feed = request.params.feed as FeedName;
    if (!feedNames.includes(feed))
      throw gatewayError('ERR_NOT_FOUND', `no feed ${feed}: one of ${feedNames.join(', ')}`, {
        feed,
      });
    const parsed = parseJsonText(typeof request.body === 'string' ? request.body : '');
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
      throw badField('body', 'the body must be a JSON object {title, link?, description?, ...}');
    const body = parsed as Record<string, unknown>;
    const now = Date.now();
    const row: FeedRow = {
      id: randomUUID(),
      feed,
      title: text(body, 'title', true),
      link: link(body),
      description: text(body, 'description', false),
      author: text(body, 'author', false),
      publication_date: publicationDate(body, now),
      date_added: now,
    };
    await db.insertInto('dashboard_feed_items').values(row).execute();
    return describe(row);
  });

  app.delete<{ Params: { id: string } }>('/feeds/items/:id', async (request) => {
    const { id } = request.params;
    const deleted = await db
      .deleteFrom('dashboard_feed_items')
      .where('id', '=', id.toLowerCase())
      .executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0)
      throw gatewayError('ERR_NOT_FOUND', `feed item ${id} not found`, { id });
    return { id };
  });
}
