import type { Selectable } from 'kysely';
import type { Database } from '../../store/schema.ts';
import { asBoolean } from '../../store/sqlite-booleans.ts';
import { isJsonObject } from '../../common/request-body.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

/** 400 with the field named: the agent's one kind of bad-request answer. */
export function badField(field: string, reason: string): GatewayError {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

/** The agent qualifies usernames itself (backends.md §1.2); it keeps the short form, cut at the first `@`. */
export function shortUsername(user: string): string {
  const at = user.indexOf('@');
  return at === -1 ? user : user.slice(0, at);
}

/**
 * Types are matched ignoring case, spaces and `_` alike (clients filter by display names such as
 * `Tool Request`): stored lower case with `_`, listed with spaces.
 */
export const storedType = (type: string): string => type.trim().toLowerCase().replace(/ /g, '_');
export const listedType = (type: string): string => type.replace(/_/g, ' ');

/** The notification request of backends.md §4.1, checked. */
export interface NotificationRequest {
  type: string;
  user: string;
  subject: string;
  message?: string;
  email?: boolean;
  email_template?: string;
  payload?: Record<string, unknown>;
  outputDir?: string;
  outputManifest?: unknown[];
}

function optional<T>(
  body: Record<string, unknown>,
  field: string,
  check: (value: unknown) => boolean,
  kind: string,
): T | undefined {
  const value = body[field];
  if (value === undefined || value === null) return undefined;
  if (!check(value)) throw badField(field, `body field "${field}" must be ${kind}`);
  return value as T;
}

const isString = (value: unknown) => typeof value === 'string';

/** Validates a notification request; anything unusable is a 400 naming the field. */
export function notificationRequest(body: unknown): NotificationRequest {
  if (!isJsonObject(body))
    throw badField(
      'body',
      'the body must be a JSON object {type, user, subject, message?, payload?}',
    );
  const fields = body as Record<string, unknown>;
  const required = (field: string): string => {
    const value = fields[field];
    if (typeof value !== 'string' || value.trim() === '')
      throw badField(field, `body field "${field}" must be a non-empty string`);
    return value;
  };
  const type = required('type');
  if (type.length > 32 || type.includes('.'))
    throw badField('type', 'body field "type" must be at most 32 characters and contain no "."');
  return {
    type,
    user: shortUsername(required('user')),
    subject: required('subject'),
    message: optional(fields, 'message', isString, 'a string'),
    email: optional(fields, 'email', (value) => typeof value === 'boolean', 'true or false'),
    email_template: optional(fields, 'email_template', isString, 'a string'),
    payload: optional(fields, 'payload', isJsonObject, 'a JSON object'),
    outputDir: optional(fields, 'outputDir', isString, 'a string'),
    outputManifest: optional(fields, 'outputManifest', Array.isArray, 'a list'),
  };
}

export type NotificationRow = Pick<
  Selectable<Database['notifications']>,
  'id' | 'type' | 'username' | 'subject' | 'seen' | 'deleted' | 'time_created' | 'incoming_json'
>;

/**
 * The spec's Notification (gateway-spec "Notification"), seen and deleted from the row. Its
 * `message.timestamp` is a string of ms, not the spec's number: the web UI cuts the last three
 * characters off it with a string method (clients.md §5.2).
 */
export function notificationJson(row: NotificationRow): Record<string, unknown> {
  const incoming = JSON.parse(row.incoming_json) as NotificationRequest;
  const payload = incoming.payload ?? {};
  const resultFolder = typeof payload.resultfolderid === 'string' ? payload.resultfolderid : '';
  return {
    type: listedType(row.type),
    user: row.username,
    subject: row.subject,
    seen: asBoolean(row.seen),
    deleted: asBoolean(row.deleted),
    email: incoming.email ?? false,
    email_template: incoming.email_template ?? null,
    message: {
      id: row.id,
      text: incoming.message ?? row.subject,
      timestamp: String(row.time_created),
    },
    payload,
    outputDir: incoming.outputDir ?? resultFolder,
    outputManifest: incoming.outputManifest ?? [],
  };
}

export const notificationColumns = [
  'id',
  'type',
  'username',
  'subject',
  'seen',
  'deleted',
  'time_created',
  'incoming_json',
] as const;
