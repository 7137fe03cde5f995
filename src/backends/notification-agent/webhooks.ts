// Users' webhooks (routes.md §18, docs/api/webhooks.md): URLs subscribed to topics (notification
// types). The apps service serves the routes that keep them (through this service's door); the
// agent delivers (webhook-delivery.ts): when it records a notification of a subscribed topic, it
// POSTs it to each of the user's URLs subscribed to that topic, signed with the webhook's secret, in
// the background with a timeout and bounded retries, from an outbox that outlives the process. A
// failing webhook never delays, fails or loses the notification.
import { createHmac, randomBytes, randomUUID } from 'node:crypto';
import type { Kysely, Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { isUniqueViolation } from '../../store/unique-violation.ts';
import { isJsonObject } from '../../common/request-body.ts';
import { checkOutboundUrl } from '../../common/outbound-fetch.ts';
import { gatewayError } from '../../common/errors.ts';
import { storedType } from './model.ts';

/** The header carrying `sha256=<hex HMAC-SHA256 of the body>`, keyed by the webhook's secret. */
export const signatureHeader = 'X-Platform-Signature';
/** At most this many webhooks per user. */
export const maxWebhooksPerUser = 20;
const maxUrlLength = 2048;

export interface WebhookSettings {
  allowPrivateNetworks: boolean;
  timeoutMs: number;
  attempts: number;
  retryDelayMs: number;
}

type Db = Kysely<Database>;
type TypeRow = Selectable<Database['webhook_types']>;
type TopicRow = Selectable<Database['webhook_topics']>;

const bad = (field: string, reason: string) =>
  gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });

/** `GET /webhooks/types`: Slack (`{text}` bodies), Zapier and Custom (the notification itself). */
export async function webhookTypes(db: Db): Promise<{ webhooktypes: TypeRow[] }> {
  const rows = await db.selectFrom('webhook_types').selectAll().orderBy('type').execute();
  return { webhooktypes: rows };
}

/** `GET /webhooks/topics`: the notification types one may subscribe to. */
export async function webhookTopics(db: Db): Promise<{ topics: TopicRow[] }> {
  return { topics: await db.selectFrom('webhook_topics').selectAll().orderBy('topic').execute() };
}

/** A user's webhooks, each with its type, topics and secret, oldest first. */
export async function userWebhooks(db: Db, user: string) {
  const hooks = await db
    .selectFrom('webhooks as w')
    .innerJoin('webhook_types as t', 't.id', 'w.type_id')
    .select(['w.id', 'w.url', 'w.secret', 't.id as type_id', 't.type', 't.template'])
    .where('w.username', '=', user)
    .orderBy('w.created_on')
    .orderBy('w.id')
    .execute();
  const subscriptions =
    hooks.length === 0
      ? []
      : await db
          .selectFrom('webhook_subscriptions as s')
          .innerJoin('webhook_topics as t', 't.id', 's.topic_id')
          .select(['s.webhook_id', 't.topic'])
          .where(
            's.webhook_id',
            'in',
            hooks.map((hook) => hook.id),
          )
          .orderBy('t.topic')
          .execute();
  return hooks.map((hook) => ({
    id: hook.id,
    url: hook.url,
    type: { id: hook.type_id, type: hook.type, template: hook.template },
    topics: subscriptions
      .filter((subscription) => subscription.webhook_id === hook.id)
      .map((subscription) => subscription.topic),
    secret: hook.secret,
  }));
}

interface WantedWebhook {
  url: string;
  typeId: string;
  topicIds: string[];
}

/** A type as clients send it: `{type}` (or `{id}`), or its name. */
function typeOf(value: unknown, types: TypeRow[], field: string): TypeRow {
  const wanted = isJsonObject(value) ? (value.type ?? value.id) : value;
  const found =
    typeof wanted === 'string'
      ? types.find(
          (type) =>
            type.id === wanted.toLowerCase() || type.type.toLowerCase() === wanted.toLowerCase(),
        )
      : undefined;
  if (!found)
    throw bad(field, `"type" must be one of ${types.map((type) => type.type).join(', ')}`);
  return found;
}

/** Topics as clients send them: names (any case, `_` or space), or `{topic}` / `{id}` objects. */
function topicsOf(value: unknown, topics: TopicRow[], field: string): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) throw bad(field, '"topics" must be a list of topic names');
  const ids = new Set<string>();
  for (const item of value) {
    const wanted = isJsonObject(item) ? (item.topic ?? item.id) : item;
    const found =
      typeof wanted === 'string'
        ? topics.find(
            (topic) =>
              topic.id === wanted.toLowerCase() || storedType(topic.topic) === storedType(wanted),
          )
        : undefined;
    if (!found)
      throw bad(
        field,
        `unknown topic ${JSON.stringify(wanted)}; topics are ${topics.map((topic) => topic.topic).join(', ')}`,
      );
    ids.add(found.id);
  }
  return [...ids];
}

/** The URL, checked: http(s), no credentials, and an allowed address unless private networks are. */
async function urlOf(value: unknown, allowPrivateNetworks: boolean, field: string) {
  if (typeof value !== 'string' || value.trim() === '')
    throw bad(field, '"url" must be an http or https URL');
  if (value.length > maxUrlLength)
    throw bad(field, `"url" must be at most ${maxUrlLength} characters`);
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw bad(field, `${JSON.stringify(value)} is not a URL`);
  }
  try {
    await checkOutboundUrl(url, allowPrivateNetworks);
  } catch (error) {
    const reason = (error as Error).message;
    throw bad(field, `webhook URL refused: ${reason}`);
  }
  return url.toString();
}

/**
 * `PUT /webhooks`: replaces the user's webhooks with `body.webhooks` (`[]` clears them). A URL the
 * user already had keeps its id and secret; a new one gets a fresh secret. Answers the new list.
 */
export async function replaceWebhooks(
  db: Db,
  user: string,
  body: unknown,
  options: { allowPrivateNetworks: boolean; now: () => number },
) {
  if (!isJsonObject(body) || !Array.isArray(body.webhooks))
    throw bad('webhooks', 'the body must be {webhooks: [{url, type: {type}, topics: [...]}]}');
  const list = body.webhooks as unknown[];
  if (list.length > maxWebhooksPerUser)
    throw bad('webhooks', `at most ${maxWebhooksPerUser} webhooks per user`);
  const [types, topics] = await Promise.all([
    db.selectFrom('webhook_types').selectAll().execute(),
    db.selectFrom('webhook_topics').selectAll().execute(),
  ]);
  const wanted: WantedWebhook[] = [];
  for (const [index, item] of list.entries()) {
    const field = `webhooks[${index}]`;
    if (!isJsonObject(item)) throw bad(field, 'every webhook must be {url, type, topics}');
    const url = await urlOf(item.url, options.allowPrivateNetworks, `${field}.url`);
    if (wanted.some((other) => other.url === url))
      throw bad(`${field}.url`, `${url} is listed twice`);
    wanted.push({
      url,
      typeId: typeOf(item.type, types, `${field}.type`).id,
      topicIds: topicsOf(item.topics, topics, `${field}.topics`),
    });
  }

  try {
    await db.transaction().execute(async (trx) => {
      const current = await trx
        .selectFrom('webhooks')
        .select(['id', 'url'])
        .where('username', '=', user)
        .execute();
      const gone = current.filter((hook) => !wanted.some((want) => want.url === hook.url));
      if (current.length > 0)
        await trx
          .deleteFrom('webhook_subscriptions')
          .where(
            'webhook_id',
            'in',
            current.map((hook) => hook.id),
          )
          .execute();
      if (gone.length > 0)
        await trx
          .deleteFrom('webhooks')
          .where(
            'id',
            'in',
            gone.map((hook) => hook.id),
          )
          .execute();
      const at = options.now();
      for (const [index, want] of wanted.entries()) {
        let id = current.find((hook) => hook.url === want.url)?.id;
        if (id) {
          await trx
            .updateTable('webhooks')
            .set({ type_id: want.typeId })
            .where('id', '=', id)
            .execute();
        } else {
          id = randomUUID();
          await trx
            .insertInto('webhooks')
            .values({
              id,
              username: user,
              url: want.url,
              type_id: want.typeId,
              secret: randomBytes(32).toString('hex'),
              created_on: at + index,
            })
            .execute();
        }
        if (want.topicIds.length > 0)
          await trx
            .insertInto('webhook_subscriptions')
            .values(want.topicIds.map((topicId) => ({ webhook_id: id, topic_id: topicId })))
            .execute();
      }
    });
  } catch (error) {
    if (isUniqueViolation(error))
      throw gatewayError('ERR_CONFLICT', 'the webhooks changed while they were being replaced');
    throw error;
  }
  return userWebhooks(db, user);
}

/** `sha256=<hex>`: the signature of `body` under `secret`. */
export function signature(secret: string, body: Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** The body a webhook of `type` gets: Slack's `{text}`, else the notification as listed. */
export function bodyFor(type: string, notification: Record<string, unknown>): Buffer {
  if (type.toLowerCase() === 'slack') {
    const subject = String(notification.subject ?? '');
    const text = String((notification.message as { text?: unknown } | undefined)?.text ?? '');
    return Buffer.from(
      JSON.stringify({ text: text && text !== subject ? `${subject}: ${text}` : subject }),
    );
  }
  return Buffer.from(JSON.stringify(notification));
}
