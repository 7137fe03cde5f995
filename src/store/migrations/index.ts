import type { Migration } from 'kysely';
import * as users from './001-users.js';

/** Versioned migrations, applied in key order on either engine. Never edit one that has shipped. */
export const migrations: Record<string, Migration> = {
  '001-users': users,
};
