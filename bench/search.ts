/**
 * `npm run bench:search`: how fast the data search answers a name search over a large catalog.
 * Inserts 100,000 files (SEARCH_BENCH_ROWS) straight into the catalog, 1,000 a folder, each with its
 * owner's grant as the data store makes them (the name index is kept by the triggers of migration
 * 026), then times searches the web UI makes through the search service's own code: a term
 * anywhere in the name, a name prefix, and one with a path prefix and a sort. SQLite always;
 * PostgreSQL too when DATABASE_URL is set (in a private schema, dropped afterwards).
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import pg from 'pg';
import { openSharedDataStore } from '../src/backends/data-info/index.ts';
import { readSearchRequest } from '../src/backends/search/request.ts';
import { search } from '../src/backends/search/search.ts';
import { loadConfig } from '../src/config/index.ts';
import { openStore } from '../src/store/database.ts';

const rows = Number(process.env.SEARCH_BENCH_ROWS ?? 100_000);
const runs = Number(process.env.SEARCH_BENCH_RUNS ?? 50);
const perFolder = 1000;
const words = ['reads', 'assembly', 'notes', 'variants', 'counts', 'alignment', 'summary'];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

async function privateSchema(databaseUrl: string) {
  const schema = `bench_${randomUUID().replace(/-/g, '')}`;
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`create schema ${schema}`);
  await client.end();
  const url = new URL(databaseUrl);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return {
    url: url.toString(),
    drop: async () => {
      const dropper = new pg.Client({ connectionString: databaseUrl });
      await dropper.connect();
      await dropper.query(`drop schema if exists ${schema} cascade`);
      await dropper.end();
    },
  };
}

async function bench(engine: string, databaseUrl?: string) {
  const dir = mkdtempSync(path.join(tmpdir(), 'search-bench-'));
  const schema = databaseUrl ? await privateSchema(databaseUrl) : undefined;
  const store = await openStore({ dataDir: dir, databaseUrl: schema?.url });
  try {
    const { dataStore } = loadConfig({
      GATEWAY_DATA_DIR: dir,
      DATA_ZONE: 'bench',
      DATA_STORE_DIR: path.join(dir, 'blobs'),
    });
    const data = await openSharedDataStore(store.db, dataStore);
    const alice = await data.caller('alice');
    await data.caller('bob');
    const home = '/bench/home/alice';
    const started = performance.now();
    for (let folder = 0; folder * perFolder < rows; folder++) {
      const parent = `${home}/run-${folder}`;
      const objects = [
        { path: parent, parent_path: home, name: `run-${folder}`, type: 'dir' as const },
      ];
      for (let i = folder * perFolder; i < Math.min(rows, (folder + 1) * perFolder); i++) {
        const name = `sample-${i}-${words[i % words.length]}.fastq`;
        objects.push({
          path: `${parent}/${name}`,
          parent_path: parent,
          name,
          type: 'file' as never,
        });
      }
      const values = objects.map((object, index) => ({
        ...object,
        id: randomUUID(),
        owner: 'alice',
        created_at: index,
        modified_at: index,
        size: index * 10,
        info_type: 'fastq',
      }));
      await store.db.transaction().execute(async (trx) => {
        for (let at = 0; at < values.length; at += 500) {
          const slice = values.slice(at, at + 500);
          await trx.insertInto('data_objects').values(slice).execute();
          await trx
            .insertInto('data_permissions')
            .values(
              slice.map((row) => ({
                object_id: row.id,
                username: 'alice',
                permission: 'own' as const,
              })),
            )
            .execute();
        }
      });
    }
    const insertSeconds = (performance.now() - started) / 1000;
    // Statistics as a live database keeps them (PostgreSQL's autovacuum); the bulk insert is too quick for it.
    await sql`analyze`.execute(store.db);

    const scenarios: [string, (run: number) => unknown][] = [
      [
        'term anywhere (label "<n>-")',
        (run) => ({
          query: { all: [{ type: 'label', args: { label: `${(run * 7919) % rows}-` } }] },
          size: 100,
        }),
      ],
      [
        'name prefix (label "sample-<n>*")',
        (run) => ({
          query: { all: [{ type: 'label', args: { label: `sample-${(run * 104729) % rows}*` } }] },
          size: 100,
        }),
      ],
      [
        'word + path prefix, sorted',
        (run) => ({
          query: {
            all: [
              { type: 'label', args: { label: 'variants' } },
              {
                type: 'path',
                args: { prefix: `${home}/run-${run % Math.ceil(rows / perFolder)}/` },
              },
            ],
          },
          size: 25,
          sort: [{ field: 'dateModified', order: 'descending' }],
        }),
      ],
    ];
    const table = [];
    for (const [scenario, body] of scenarios) {
      const times: number[] = [];
      let total = 0;
      for (let run = 0; run < runs; run++) {
        const begin = performance.now();
        const answer = await search(data, alice, readSearchRequest(body(run)));
        times.push(performance.now() - begin);
        total += answer.total;
      }
      times.sort((a, b) => a - b);
      table.push({
        engine,
        scenario,
        'p50 ms': Number(percentile(times, 50).toFixed(2)),
        'p95 ms': Number(percentile(times, 95).toFixed(2)),
        'mean hits': Math.round(total / runs),
      });
    }
    console.log(
      `${engine}: ${rows} files inserted (index kept by triggers) in ${insertSeconds.toFixed(1)} s`,
    );
    console.table(table);
  } finally {
    await store.close();
    await schema?.drop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await bench('SQLite');
if (process.env.DATABASE_URL) await bench('PostgreSQL', process.env.DATABASE_URL);
