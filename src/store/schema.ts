import type { ColumnType } from 'kysely';

/** A per-user JSON document kept as the text the client sent (user-info preferences, sessions, searches). */
type UserDocument<Column extends string> = { id: string; user_id: string } & Record<Column, string>;

/** Typed view of the tables, shared by SQLite and PostgreSQL queries. */
export interface Database {
  users: {
    id: string;
    /** Qualified: `alice@<uid-domain>`. */
    username: string;
    email: string | null;
    first_name: string | null;
    last_name: string | null;
    /** Milliseconds since the epoch. */
    created_at: ColumnType<number, number | undefined, number>;
    last_seen_at: ColumnType<number, number | undefined, number>;
  };
  user_preferences: UserDocument<'preferences'>;
  user_sessions: UserDocument<'session'>;
  user_saved_searches: UserDocument<'saved_searches'>;
  bags: { id: string; user_id: string; contents: string };
  default_bags: { user_id: string; bag_id: string };
  workspace: {
    id: string;
    user_id: string;
    root_category_id: string;
    /** SQLite hands booleans back as 0/1. */
    is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
  };
  logins: {
    id: string;
    user_id: string;
    ip_address: string | null;
    /** Milliseconds since the epoch. */
    login_time: number;
    session_id: string | null;
  };
  global_alerts: {
    /** Milliseconds since the epoch; null means "from the start". */
    start_date: number | null;
    end_date: number;
    alert: string;
  };
}

export type UserDocumentTableName = 'user_preferences' | 'user_sessions' | 'user_saved_searches';
