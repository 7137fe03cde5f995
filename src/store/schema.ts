import type { ColumnType } from 'kysely';

/** Typed view of the tables, shared by SQLite and PostgreSQL queries. */
export interface Database {
  users: {
    id: string;
    username: string;
    email: string | null;
    first_name: string | null;
    last_name: string | null;
    /** Milliseconds since the epoch. */
    created_at: ColumnType<number, number | undefined, number>;
    last_seen_at: ColumnType<number, number | undefined, number>;
  };
}
