// Walking the authorization matrix on one platform: for each row, the resource made (once, or
// fresh for each caller a row lets destroy it), each actor's call answered as the row expects, and
// after the refused callers of a write the owner's read-back unchanged. Mismatches are collected as
// lines, so one run reports every hole.
import {
  expected,
  isDenial,
  walkers,
  type Denial,
  type Kind,
  type Outcome,
  type Resource,
  type Row,
  type Security,
} from './model.ts';
import type { Actor, Answer, Call, Platform } from './platform.ts';

/** The request of `op` ("METHOD /path") for `actor` on `resource`. */
export function callOf(row: Row, op: string, resource: Resource, actor: Actor): Call {
  const [method, template] = op.split(' ') as [string, string];
  const params = row.params?.(resource, actor) ?? {};
  const path = template.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${op}: the row gives no parameter ${name}`);
    return name === '*' ? value : encodeURIComponent(value);
  });
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(row.query?.(resource, actor) ?? {}))
    for (const each of Array.isArray(value) ? value : [value]) search.append(name, each);
  const query = search.toString();
  return {
    method,
    url: query ? `${path}?${query}` : path,
    ...(row.json ? { json: row.json(resource, actor) } : {}),
    ...(row.form ? { form: row.form(resource, actor) } : {}),
    ...(row.from?.(actor) ? { from: row.from(actor) } : {}),
  };
}

const describe = (outcome: Outcome): string =>
  typeof outcome === 'string'
    ? outcome
    : isDenial(outcome)
      ? `${outcome.status} ${[outcome.code].flat().join('|')}`
      : `2xx with item ${outcome.item}`;

const codes = (denial: Denial) => [denial.code].flat();

/** Whether some item of a per-item answer (sharing, members) failed: `success: false` inside it. */
function failsAnItem(value: unknown): boolean {
  if (Array.isArray(value)) return value.some(failsAnItem);
  if (!value || typeof value !== 'object') return false;
  const record = value as Record<string, unknown>;
  return record.success === false || Object.values(record).some(failsAnItem);
}

/**
 * Whether some object inside `value` has `error_code` equal to `code` (any failed item for `*`),
 * and none `success: true`.
 */
function refusesItem(value: unknown, code: string): boolean {
  let refused = false;
  let succeeded = false;
  const visit = (node: unknown) => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      const record = node as Record<string, unknown>;
      if (code === '*' ? record.success === false : record.error_code === code) refused = true;
      if (record.success === true) succeeded = true;
      Object.values(record).forEach(visit);
    }
  };
  visit(value);
  return refused && !succeeded;
}

const seenIn = (row: Row, answer: Answer, resource: Resource) =>
  row.seen ? row.seen(answer, resource) : answer.text.includes(resource.marker);

/** Why `answer` is not `outcome`, or undefined when it is. */
function mismatch(row: Row, method: string, outcome: Outcome, answer: Answer, resource: Resource) {
  const ok = answer.status >= 200 && answer.status <= 299;
  if (outcome === 'allow') {
    if (!ok) return 'refused';
    if (failsAnItem(answer.body)) return 'an item refused';
    if (row.needs === 'listing' && !row.writes && !seenIn(row, answer, resource))
      return 'not shown the resource';
    return undefined;
  }
  if (outcome === 'blind') {
    if (!ok) return 'refused';
    return seenIn(row, answer, resource) ? 'shown the resource' : undefined;
  }
  if (isDenial(outcome))
    return answer.status === outcome.status &&
      // A HEAD answer has no body to name its error.
      (method === 'HEAD' || codes(outcome).includes(answer.body?.error_code))
      ? undefined
      : 'not refused so';
  return ok && refusesItem(answer.body, outcome.item) ? undefined : 'not refused so';
}

/** A snapshot of what the owner reads back, for comparing before and after refused writes. */
async function readBack(context: WalkContext, kind: Kind, row: Row, resource: Resource) {
  const { platform } = context;
  const calls = row.readBack?.(resource, platform) ?? kind.readBack(resource, platform);
  const owner = kind.owner ?? 'owner';
  const answers: string[] = [];
  for (const call of calls) {
    context.readBacks++;
    const answer = await platform.call(owner, call);
    // When the answer was made is no part of what it says (the analyses' `timestamp`).
    const { timestamp: _, ...said } =
      answer.body && typeof answer.body === 'object' && !Array.isArray(answer.body)
        ? answer.body
        : { body: answer.text };
    answers.push(`${call.method} ${call.url} → ${answer.status} ${JSON.stringify(said)}`);
  }
  return answers;
}

/** Where two read-backs part: the call, and a little of each around the first difference. */
function difference(before: string, after: string): string {
  let at = 0;
  while (at < before.length && before[at] === after[at]) at++;
  const call = before.slice(0, before.indexOf(' → '));
  const around = (text: string) => text.slice(Math.max(0, at - 80), at + 120);
  return `${call}: …${around(before)}… ⇒ …${around(after)}…`;
}

export interface WalkContext {
  platform: Platform;
  kinds: Record<string, Kind>;
  /** The resource of a kind shared by the rows that leave it as it was (made on first use). */
  shared(kind: string): Promise<Resource>;
  /** Forgets the shared resource of a kind (a row spoilt it): the next use makes another. */
  forget(kind: string): void;
  /** How each operation reads credentials, by `METHOD /path`. */
  security: Map<string, Security>;
  /**
   * Whether to walk the answers the guard gives by itself, whatever the store: 401 to an anonymous
   * caller of a route that requires credentials, and every answer of an administrators' or service
   * accounts' route (refused by role; an administrator's call is a fixture's check). They are the
   * same on every engine: the first walks them, the others walk what their store decides.
   */
  guardDecided: boolean;
  /** The calls walked so far, and the owner's read-backs. */
  calls: number;
  readBacks: number;
}

/** An operation without its `/secured` prefix: an operation and its alias are the same so. */
const unsecured = (op: string) => op.replace(' /secured/', ' /');

/** Walks one row; answers its mismatches, one line each. */
export async function walkRow(context: WalkContext, row: Row): Promise<string[]> {
  const { platform, kinds } = context;
  const kind = kinds[row.on];
  if (!kind) return [`${row.ops.join(', ')}: no kind ${row.on}`];
  if (!context.guardDecided && (row.needs === 'admin' || row.needs === 'service')) return [];
  const found: string[] = [];
  const steps: { op: string; actor: Actor; outcome: Outcome }[] = [];
  for (const [index, op] of row.ops.entries()) {
    const security = context.security.get(op);
    if (!security) {
      found.push(`${op}: not an operation of /openapi.json`);
      continue;
    }
    // An alias is the same route at another path (`/secured/x` beside `/x`): every actor on the
    // first; on the alias one allowed caller, a stranger and an anonymous caller, whose answers
    // tell the two apart (the alias may take credentials otherwise), on the first engine only:
    // the store behind the two is one. Other routes of a row are walked with every actor.
    const everyone = walkers(row, kind).map((actor) => ({
      op,
      actor,
      outcome: expected(row, kind, actor, security),
    }));
    const firstAllowed = everyone.find(({ outcome }) => outcome === 'allow')?.actor;
    const alias = row.ops.slice(0, index).some((earlier) => unsecured(earlier) === unsecured(op));
    if (alias && !context.guardDecided) continue;
    steps.push(
      ...everyone.filter(
        ({ actor }) =>
          (!alias || actor === firstAllowed || actor === 'stranger' || actor === 'anonymous') &&
          (context.guardDecided || actor !== 'anonymous' || security !== 'required'),
      ),
    );
  }
  const attempt = async (step: (typeof steps)[number], resource: Resource) => {
    const call = callOf(row, step.op, resource, step.actor);
    const answer = await platform.call(step.actor, call);
    context.calls++;
    const why = mismatch(row, call.method, step.outcome, answer, resource);
    if (why)
      found.push(
        `${step.op} as ${step.actor}: ${why}, expected ${describe(step.outcome)}; got ${answer.status} ${answer.text.slice(0, 200)}`,
      );
  };
  // The refused (and blind) first, on the kind's shared resource (they change nothing), the
  // owner's read-back taken before and after them all.
  const denied = steps.filter(({ outcome }) => outcome !== 'allow');
  // An administrators' or service accounts' route refuses by role before it reaches anything:
  // its refusal, 403 from the guard, is the check; there is nothing to read back.
  const readsBack = row.writes && row.needs !== 'admin' && row.needs !== 'service';
  if (denied.length > 0) {
    const resource = await context.shared(row.on);
    const before = readsBack ? await readBack(context, kind, row, resource) : [];
    for (const step of denied) await attempt(step, resource);
    if (readsBack) {
      const after = await readBack(context, kind, row, resource);
      const changed = after.findIndex((line, index) => line !== before[index]);
      if (changed >= 0)
        found.push(
          `${row.ops.join(', ')}: refused callers (${[...new Set(denied.map(({ actor }) => actor))].join(', ')}) changed what the owner reads: ${difference(before[changed]!, after[changed]!)}`,
        );
    }
  }
  const allowed = steps.filter(({ outcome }) => outcome === 'allow');
  for (const op of row.ops) {
    const ofOp = allowed.filter((step) => step.op === op);
    // An operation's fresh resources are made side by side (a session's start is mostly waiting).
    const resources = row.fresh
      ? await Promise.all(ofOp.map(() => kind.make(platform, context.shared)))
      : [];
    for (const [index, step] of ofOp.entries())
      await attempt(step, resources[index] ?? (await context.shared(row.on)));
  }
  if (row.spoils && allowed.length > 0) context.forget(row.on);
  return found;
}
