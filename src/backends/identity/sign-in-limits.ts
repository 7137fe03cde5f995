// Failed sign-ins of the embedded identity provider (docs/authentication.md, "Failed sign-ins"):
// counted per username and per client address in the database, which every gateway process and
// instance shares, and which the administrator's route and `npm run user -- unlock` reach too.
//
// A password check is admitted before scrypt runs and counted as a failure at once, so that
// checks running side by side cannot pass a lock that the first of them to fail would have set;
// a right password then takes its count back (the address's) or clears it (the username's).
import type { SignInLock, SignInLocks } from '../../common/identity-provider.ts';
import type { SignInLimitSettings, SignInLockPolicy } from '../../config/index.ts';
import type { Store } from '../../store/database.ts';
import { attempt, expiryOf, freshState, type LockState } from './failure-counts.ts';
import { addressName } from '../../common/client-address.ts';
import { usernamePattern } from './users.ts';

const userKey = (username: string) => `user:${username}`;
const addressKey = (name: string) => `address:${name}`;

/** A key admitted for one password check, with its count before and after. */
interface Taken {
  key: string;
  previous: LockState;
  next: LockState;
}

/** A password check admitted (its keys' counts taken), or refused while a key is locked. */
export type Admission =
  | { admitted: true; taken: Taken[] }
  | { admitted: false; retryAfterSeconds: number; kind: 'user' | 'address' };

type Row = {
  key: string;
  failures: number | string;
  last_failure_at: number | string;
  locked_until: number | string;
  lock_ms: number | string;
  expires_at: number | string;
};

const stateOf = (row: Row): LockState => ({
  failures: Number(row.failures),
  lastFailureAt: Number(row.last_failure_at),
  lockedUntil: Number(row.locked_until),
  lockMs: Number(row.lock_ms),
});

export interface LockEvent {
  kind: 'user' | 'address';
  name: string;
  lockedUntil: number;
}

export class SignInLimits implements SignInLocks {
  private readonly store: Store;
  private readonly settings: SignInLimitSettings;
  private readonly now: () => number;
  private readonly onLock: (event: LockEvent) => void;
  private readonly windowMs: number;

  constructor(
    store: Store,
    settings: SignInLimitSettings,
    now: () => number = Date.now,
    /** Told of every lock (the gateway logs it). */
    onLock: (event: LockEvent) => void = () => {},
  ) {
    this.store = store;
    this.settings = settings;
    this.now = now;
    this.onLock = onLock;
    this.windowMs = settings.windowSeconds * 1000;
  }

  private columns(state: LockState) {
    return {
      failures: state.failures,
      last_failure_at: state.lastFailureAt,
      locked_until: state.lockedUntil,
      lock_ms: state.lockMs,
      expires_at: expiryOf(state, this.windowMs),
    };
  }

  /** One key's check: refused while it is locked, else counted (in a transaction holding its row). */
  private async take(
    key: string,
    policy: SignInLockPolicy,
    now: number,
  ): Promise<{ taken: Taken; locks: boolean } | { lockedUntil: number }> {
    const db = this.store.db;
    return db.transaction().execute(async (trx) => {
      await trx
        .insertInto('idp_sign_in_failures')
        .values({ key, ...this.columns(freshState), expires_at: 0 })
        .onConflict((conflict) => conflict.column('key').doNothing())
        .execute();
      // SQLite's transactions hold the write lock from their start (BEGIN IMMEDIATE).
      const query = trx.selectFrom('idp_sign_in_failures').selectAll().where('key', '=', key);
      const row = await (
        this.store.engine === 'postgres' ? query.forUpdate() : query
      ).executeTakeFirstOrThrow();
      const previous = Number(row.expires_at) <= now ? freshState : stateOf(row);
      const step = attempt(previous, now, policy, this.windowMs);
      if (!step.admitted) return { lockedUntil: step.lockedUntil };
      await trx
        .updateTable('idp_sign_in_failures')
        .set(this.columns(step.next))
        .where('key', '=', key)
        .execute();
      return { taken: { key, previous, next: step.next }, locks: step.locks };
    });
  }

  /**
   * Gives a taken check back: the count as it was, unless another check has counted since; then
   * one failure fewer, unless a lock has come since (which this check did not set).
   */
  private async giveBack({ key, previous, next }: Taken): Promise<void> {
    const db = this.store.db;
    const restored = await db
      .updateTable('idp_sign_in_failures')
      .set(this.columns(previous))
      .where('key', '=', key)
      .where('failures', '=', next.failures)
      .where('last_failure_at', '=', next.lastFailureAt)
      .where('locked_until', '=', next.lockedUntil)
      .executeTakeFirst();
    if (Number(restored.numUpdatedRows) > 0) return;
    await db
      .updateTable('idp_sign_in_failures')
      .set((eb) => ({ failures: eb('failures', '-', 1) }))
      .where('key', '=', key)
      .where('failures', '>', 0)
      .where('locked_until', '=', next.lockedUntil)
      .execute();
  }

  /**
   * Admits a password check of `username` from `address`, or refuses it while either is locked
   * (whatever the password). Counted at once as a failure of both; `settle` takes it back.
   */
  async admit(username: string, address: string | undefined): Promise<Admission> {
    const now = this.now();
    await this.store.db.deleteFrom('idp_sign_in_failures').where('expires_at', '<=', now).execute();
    const keys: { kind: 'user' | 'address'; name: string; policy: SignInLockPolicy }[] = [];
    // A name that cannot be a user's is counted against its address alone.
    if (this.settings.user.maxFailures > 0 && usernamePattern.test(username))
      keys.push({ kind: 'user', name: username, policy: this.settings.user });
    const network = address === undefined ? undefined : addressName(address);
    if (this.settings.address.maxFailures > 0 && network !== undefined)
      keys.push({ kind: 'address', name: network, policy: this.settings.address });
    const taken: Taken[] = [];
    for (const { kind, name, policy } of keys) {
      const key = kind === 'user' ? userKey(name) : addressKey(name);
      const result = await this.take(key, policy, now);
      if ('lockedUntil' in result) {
        for (const earlier of taken) await this.giveBack(earlier);
        return {
          admitted: false,
          kind,
          retryAfterSeconds: Math.max(1, Math.ceil((result.lockedUntil - now) / 1000)),
        };
      }
      taken.push(result.taken);
      if (result.locks) this.onLock({ kind, name, lockedUntil: result.taken.next.lockedUntil });
    }
    return { admitted: true, taken };
  }

  /** After the check: a right password clears the username's count and gives the address's back. */
  async settle(admission: Admission, succeeded: boolean): Promise<void> {
    if (!admission.admitted || !succeeded) return;
    for (const taken of admission.taken)
      if (taken.key.startsWith('user:'))
        await this.store.db
          .deleteFrom('idp_sign_in_failures')
          .where('key', '=', taken.key)
          .execute();
      else await this.giveBack(taken);
  }

  /** The usernames and addresses with failures counted or a lock in force, locked first. */
  async list(): Promise<SignInLock[]> {
    const now = this.now();
    const rows = await this.store.db
      .selectFrom('idp_sign_in_failures')
      .selectAll()
      .where('expires_at', '>', now)
      .orderBy('locked_until', 'desc')
      .orderBy('key')
      .execute();
    return rows.flatMap((row): SignInLock[] => {
      const state = stateOf(row);
      const locked = state.lockedUntil > now;
      const failures = now - state.lastFailureAt < this.windowMs ? state.failures : 0;
      if (!locked && failures === 0) return [];
      const [kind, ...rest] = row.key.split(':');
      return [
        {
          kind: kind === 'user' ? 'user' : 'address',
          name: rest.join(':'),
          failures,
          ...(locked
            ? {
                lockedUntil: state.lockedUntil,
                retryAfterSeconds: Math.ceil((state.lockedUntil - now) / 1000),
              }
            : {}),
        },
      ];
    });
  }

  /** Lifts a username's lock and forgets its failures; whether there was anything to forget. */
  async liftUser(username: string): Promise<boolean> {
    return this.forget(userKey(username));
  }

  /** Lifts an address's lock (an IPv6 address: its /64's); undefined for what is not an address. */
  async liftAddress(address: string): Promise<{ name: string; lifted: boolean } | undefined> {
    const name = addressName(address);
    return name === undefined ? undefined : { name, lifted: await this.forget(addressKey(name)) };
  }

  private async forget(key: string): Promise<boolean> {
    const db = this.store.db;
    const row = await db
      .selectFrom('idp_sign_in_failures')
      .select('expires_at')
      .where('key', '=', key)
      .executeTakeFirst();
    await db.deleteFrom('idp_sign_in_failures').where('key', '=', key).execute();
    return row !== undefined && Number(row.expires_at) > this.now();
  }
}
