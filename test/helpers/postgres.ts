import { randomUUID } from 'node:crypto';
import pg from 'pg';

/**
 * A private schema in the given PostgreSQL database, so concurrent test files never see each
 * other's tables. The returned URL selects it through the connection's search_path.
 */
export async function pgSchemaUrl(databaseUrl: string): Promise<{ url: string; schema: string; drop(): Promise<void> }> {
  const schema = `t_${randomUUID().replace(/-/g, '')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    schema,
    drop: async () => {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      await dropper.query(`drop schema if exists ${schema} cascade`);
      await dropper.end();
    },
  };
}
