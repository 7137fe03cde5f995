// The shapes of the authorization matrix (matrix.ts): resource kinds (how a resource is made and
// whom it is granted to), rows (an operation of /openapi.json on a kind, and what it takes), the
// answers an actor may get, and how a row's expected answer for each actor follows from them.
import type { Actor, Answer, Call, Platform } from './platform.ts';

/** A level on a resource: the data store's and the permissions service's, and a group's. */
export type Level = 'read' | 'write' | 'own';
const order: Level[] = ['read', 'write', 'own'];

/**
 * What an operation takes: a level on the resource; `listing` (anyone signed in may call it, but
 * only those who may read the resource find it there: the others are `blind`); `admin` (an
 * administrator's role); `service` (a service account's role); `anyone` (the resource is reached
 * by a capability in the request, such as a ticket, and everyone holding it gets it).
 */
export type Need = Level | 'listing' | 'admin' | 'service' | 'anyone';

/** A refusal: its status and its `error_code` (any of several). */
export interface Denial {
  status: number;
  code: string | readonly string[];
}

/**
 * An answer an actor should get: `allow` (2xx, and no item of a per-item answer failed), `blind`
 * (2xx, and nothing of the resource in it; for a write, the owner's resource unchanged), a
 * refusal, or `{item}`: a 2xx whose per-item outcome is that `error_code` (`*`: any failure), as
 * sharing and group membership report each item, never failing the request.
 */
export type Outcome = 'allow' | 'blind' | Denial | { item: string };

/** A made resource: a unique marker (in its name), and whatever its rows need to address it. */
export interface Resource {
  marker: string;
  [field: string]: any;
}

/** Makes resources of other kinds once per platform (a launched analysis needs an app). */
export type Shared = (kind: string) => Promise<Resource>;

export interface Kind {
  /** What it is, for the table's reader. */
  about: string;
  /** Who makes and owns it (default `owner`); it holds `own`. */
  owner?: Actor;
  /** The levels the owner grants, by actor (absent: nothing). */
  grants: Partial<Record<Actor, Level>>;
  /** Actors walked though they hold nothing (a grant that no longer reaches, say). */
  also?: Actor[];
  /** The answer to a caller who holds no level on it (usually 404: it is not theirs to know of). */
  hidden: Outcome;
  /** The answer to a caller whose level is too low (usually 403). */
  short: Outcome;
  /** Makes one, as the owner, with its grants. */
  make(platform: Platform, shared: Shared): Promise<Resource>;
  /** What the owner reads back to see that a refused write changed nothing. */
  readBack(resource: Resource, platform: Platform): Call[];
}

/** A row of the matrix: routes that act alike on a kind of resource. */
export interface Row {
  /**
   * `METHOD /path` exactly as in /openapi.json; several when they take the same (a route and its
   * `/secured` alias, or routes reading the same resource alike).
   */
  ops: string[];
  /** The kind of resource it acts on (a key of kinds). */
  on: string;
  needs: Need;
  /** Path parameters by their /openapi.json names. */
  params?(resource: Resource, actor: Actor): Record<string, string>;
  query?(resource: Resource, actor: Actor): Record<string, string | string[]>;
  json?(resource: Resource, actor: Actor): unknown;
  form?(resource: Resource, actor: Actor): FormData;
  /** The address each actor calls from (default loopback). */
  from?(actor: Actor): string | undefined;
  /** It changes something: a refused caller must leave the owner's read-back unchanged. */
  writes?: boolean;
  /** The resource does not survive an allowed call: each allowed caller gets a fresh one. */
  fresh?: boolean;
  /**
   * An allowed call takes the kind's shared resource with it too (it removes all of the
   * caller's own: bags, tags): the next row to need one makes it anew.
   */
  spoils?: boolean;
  /** Whether an answer shows the resource (`listing` rows; default: its marker is in it). */
  seen?(answer: Answer, resource: Resource): boolean;
  /** The kind's refusals, where this route answers others (each with the spec's say). */
  hidden?: Outcome;
  short?: Outcome;
  /** Answers that differ from what the level rule gives, by actor. */
  except?: Partial<Record<Actor, Outcome>>;
  /** What the owner reads back, where the kind's read-back would not see this write. */
  readBack?(resource: Resource, platform: Platform): Call[];
}

export const forbidden: Denial = { status: 403, code: 'ERR_FORBIDDEN' };
export const unauthenticated: Denial = { status: 401, code: 'ERR_NOT_AUTHORIZED' };

/** How an operation reads credentials, from its `security` in /openapi.json. */
export type Security = 'none' | 'optional' | 'required';

/**
 * The answer `actor` should get from `row` on a resource of `kind`: the row's exception, else
 * anonymous callers of a route that requires credentials are 401, administrators' and service
 * accounts' routes refuse everyone else 403, and a level rule compares the actor's grant with
 * what the row needs.
 */
export function expected(row: Row, kind: Kind, actor: Actor, security: Security): Outcome {
  const exception = row.except?.[actor];
  if (exception) return exception;
  if (actor === 'anonymous' && security === 'required') return unauthenticated;
  if (row.needs === 'admin') return actor === 'admin' ? 'allow' : forbidden;
  if (row.needs === 'service') return actor === 'service' ? 'allow' : forbidden;
  if (row.needs === 'anyone') return 'allow';
  const held = levelOf(kind, actor);
  if (row.needs === 'listing') return held ? 'allow' : 'blind';
  if (!held) return row.hidden ?? kind.hidden;
  return order.indexOf(held) >= order.indexOf(row.needs) ? 'allow' : (row.short ?? kind.short);
}

export function levelOf(kind: Kind, actor: Actor): Level | undefined {
  return actor === (kind.owner ?? 'owner') ? 'own' : kind.grants[actor];
}

/**
 * The actors a row is walked with: the owner, those granted something, a stranger, an
 * administrator and an anonymous caller. On an administrators' or service accounts' route the
 * guard decides by role alone, so the owner stands for every user without it, beside the
 * stranger, the administrator, the service account and an anonymous caller.
 */
export function walkers(row: Row, kind: Kind): Actor[] {
  const owner = kind.owner ?? 'owner';
  const walked = new Set<Actor>(
    row.needs === 'admin' || row.needs === 'service'
      ? [owner, 'stranger', 'admin', 'service', 'anonymous']
      : [owner, ...(Object.keys(kind.grants) as Actor[]), ...(kind.also ?? [])],
  );
  for (const actor of ['stranger', 'admin', 'anonymous'] as Actor[]) walked.add(actor);
  for (const actor of Object.keys(row.except ?? {}) as Actor[]) walked.add(actor);
  return [...walked];
}

export const isDenial = (outcome: Outcome): outcome is Denial =>
  typeof outcome === 'object' && 'status' in outcome;
