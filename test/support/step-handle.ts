// What names an analysis's first step in its job engine (a container id, a Slurm job id), read from
// a gateway's own database: the engine's submission has been answered and recorded once it is set.
import path from 'node:path';
import SQLite from 'better-sqlite3';
import pg from 'pg';

/** `databaseUrl` when the gateway is on PostgreSQL, else its SQLite file in `dataDir`. */
export async function firstStepHandle(
  databaseUrl: string | undefined,
  dataDir: string,
  analysisId: string,
): Promise<string | null> {
  const query = `select engine_handle from analysis_steps where analysis_id = $1 and step_number = 1`;
  if (databaseUrl) {
    const client = new pg.Client({ connectionString: databaseUrl });
    await client.connect();
    try {
      return (await client.query(query, [analysisId])).rows[0]?.engine_handle ?? null;
    } finally {
      await client.end();
    }
  }
  const sqlite = new SQLite(path.join(dataDir, 'gateway.sqlite'), { readonly: true });
  try {
    const row = sqlite.prepare(query.replace('$1', '?')).get(analysisId) as
      { engine_handle: string | null } | undefined;
    return row?.engine_handle ?? null;
  } finally {
    sqlite.close();
  }
}
