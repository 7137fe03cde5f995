import type { FastifyInstance } from 'fastify';
import { parseJsonText } from '../../common/request-body.ts';
import type { Store } from '../../store/database.ts';
import { GatewayError, gatewayError } from '../../common/errors.ts';

// Go's time.Time (the original service) accepts RFC 3339 only; so do we. Offsets are ±hh:mm or Z.
const rfc3339 =
  /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d+)?(?:Z|[+-](\d{2}):(\d{2}))$/i;

function badField(field: string, reason: string): GatewayError {
  return gatewayError('ERR_BAD_OR_MISSING_FIELD', reason, { field });
}

/** Epoch milliseconds of an RFC 3339 date-time; calendar-impossible dates are refused, not rolled over. */
function parseTime(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (value === undefined || value === null) throw badField(field, `missing body field "${field}"`);
  const match = typeof value === 'string' ? rfc3339.exec(value) : null;
  if (match) {
    const [year, month, day, hour, minute, second, offsetHour, offsetMinute] = match
      .slice(1)
      .map((part) => Number(part ?? 0)) as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate();
    const inRange =
      month >= 1 &&
      month <= 12 &&
      day >= 1 &&
      day <= daysInMonth &&
      hour <= 23 &&
      minute <= 59 &&
      second <= 59;
    if (inRange && offsetHour <= 23 && offsetMinute <= 59) {
      const ms = Date.parse(match[0].toUpperCase());
      if (!Number.isNaN(ms)) return ms;
    }
  }
  throw badField(
    field,
    `invalid body field "${field}": expected an RFC 3339 date-time such as 2030-01-31T12:00:00Z`,
  );
}

function parseBody(body: unknown): Record<string, unknown> {
  const value = parseJsonText(typeof body === 'string' ? body : '');
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw gatewayError(
      'ERR_BAD_OR_MISSING_FIELD',
      'the body must be a JSON object {start_date?, end_date, alert}',
    );
  }
  return value as Record<string, unknown>;
}

function alertText(body: Record<string, unknown>): string {
  const { alert } = body;
  if (typeof alert !== 'string' || alert.trim() === '')
    throw badField('alert', 'body field "alert" must be a non-empty string');
  return alert;
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

/**
 * Global alerts (backends.md §7.5): banners shown to every user between two dates. Stored as
 * epoch milliseconds; the API speaks RFC 3339 (UTC, millisecond precision on the way out).
 * An alert is identified by `(end_date, alert)`.
 */
export function registerAlertRoutes(app: FastifyInstance, store: Store): void {
  const list = async (activeAt?: number) => {
    let query = store.db.selectFrom('global_alerts').select(['start_date', 'end_date', 'alert']);
    if (activeAt !== undefined) {
      query = query
        .where((eb) => eb.or([eb('start_date', 'is', null), eb('start_date', '<=', activeAt)]))
        .where('end_date', '>=', activeAt);
    }
    const rows = await query.orderBy('end_date').orderBy('alert').execute();
    return {
      alerts: rows.map((row) => ({
        start_date: iso(row.start_date),
        end_date: iso(row.end_date),
        alert: row.alert,
      })),
    };
  };

  app.get('/alerts/all', async () => list());
  app.get('/alerts/active', async () => list(Date.now()));

  app.post('/alerts', async (request, reply) => {
    const body = parseBody(request.body);
    const alert = alertText(body);
    const endDate = parseTime(body, 'end_date');
    const startDate =
      body.start_date === undefined || body.start_date === null
        ? null
        : parseTime(body, 'start_date');
    if (startDate !== null && endDate < startDate)
      throw badField('end_date', 'body field "end_date" must not be before "start_date"');
    // The unique (end_date, alert) constraint decides; no error text to parse on either engine.
    const inserted = await store.db
      .insertInto('global_alerts')
      .values({ start_date: startDate, end_date: endDate, alert })
      .onConflict((conflict) => conflict.columns(['end_date', 'alert']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 0) {
      throw gatewayError('ERR_EXISTS', `an alert with this text already ends at ${iso(endDate)}`, {
        end_date: iso(endDate),
        alert,
      });
    }
    return reply.code(201).send();
  });

  // Deleting an alert that is not there is not an error (as in the original service).
  app.delete('/alerts', async (request, reply) => {
    const body = parseBody(request.body);
    const alert = alertText(body);
    const endDate = parseTime(body, 'end_date');
    await store.db
      .deleteFrom('global_alerts')
      .where('end_date', '=', endDate)
      .where('alert', '=', alert)
      .execute();
    return reply.code(200).send();
  });
}
