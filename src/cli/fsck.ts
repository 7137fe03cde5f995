// `npm run fsck -- [--repair [--quarantine] [--remove-missing] [--force]] [--quick] [--json]`:
// the data store's catalog (the database) against its bytes (DATA_STORE_DIR or BLOB_STORE_URL),
// with the gateway's own settings; docs/operations.md, "Repairing the data store". Exit status as
// fsck(8)'s: 0 no difference, 1 differences all repaired, 4 differences left, 8 the check could not
// run or the repair was refused (FsckRefused: nothing changed), 16 a usage error.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { fsckDataStore, type Difference, type FsckReport } from '../backends/data-info/index.ts';
import { loadConfig, type GatewayConfig } from '../config/index.ts';
import { openStore, sqliteFileName } from '../store/database.ts';

const usage = `usage: npm run fsck -- [--repair [--quarantine] [--remove-missing] [--force]] [--quick] [--json]
  --repair          remove orphan bytes and unfinished writes, make rows describe their bytes
  --quarantine      with --repair: move orphan bytes to lost+found/ instead of removing them
  --remove-missing  with --repair: delete the files whose bytes are missing (kept otherwise)
  --force           with --repair: even while a gateway uses the folder, or when the catalog and
                    the bytes have nothing in common
  --quick           compare sizes only, without reading every file for its MD5
  --json            the report as JSON`;

const exit = { clean: 0, repaired: 1, left: 4, failed: 8, usage: 16 } as const;

class UsageError extends Error {}

/** The catalog's database, for the report: never its password. */
function catalogOf(config: GatewayConfig): string {
  if (!config.databaseUrl) return `SQLite ${path.join(config.dataDir, sqliteFileName)}`;
  try {
    const url = new URL(config.databaseUrl);
    return `PostgreSQL ${url.host}${url.pathname}`;
  } catch {
    return 'PostgreSQL (DATABASE_URL)';
  }
}

const bytes = (size: number) => `${size} byte${size === 1 ? '' : 's'}`;

/** One line of the human report for a difference. */
function describe(difference: Difference): string {
  let line: string;
  switch (difference.kind) {
    case 'orphan':
      line = `orphan      blob ${difference.blob} (${bytes(difference.size)}, written ${difference.modified}${difference.recent ? ', recently' : ''}): no file's bytes`;
      break;
    case 'missing':
      line = `missing     ${difference.path} (id ${difference.id}, owner ${difference.owner}): its bytes, blob ${difference.blob} of ${bytes(difference.size)}, are missing`;
      break;
    case 'mismatch': {
      const { catalog, bytes: actual } = difference;
      line = `mismatch    ${difference.path} (id ${difference.id}): the catalog says ${bytes(catalog.size)}${catalog.md5 ? `, MD5 ${catalog.md5}` : ''}; blob ${difference.blob} holds ${bytes(actual.size)}${actual.md5 ? `, MD5 ${actual.md5}` : ''}`;
      break;
    }
    case 'unfinished':
      line = `unfinished  ${difference.name}${difference.size === undefined ? '' : ` (${bytes(difference.size)})`}, started ${difference.started}${difference.recent ? ', recently' : ''}`;
      break;
  }
  const { repair } = difference;
  if (!repair) return line;
  return `${line}\n            → ${repair.action}${repair.detail ? `: ${repair.detail}` : ''}`;
}

function print(report: FsckReport, catalog: string): void {
  const out: string[] = [
    `catalog: ${catalog}`,
    `bytes:   ${report.bytes}`,
    `checked ${report.files} file(s) against ${report.blobs} blob(s)${report.checksums ? ', reading each for its MD5' : ', by size'}, in ${report.ms} ms`,
  ];
  for (const holder of report.holders)
    out.push(
      `in use by pid ${holder.pid ?? '?'} on ${holder.host ?? '?'}: recent differences may be writes in progress`,
    );
  if (report.differences.length === 0) out.push('no differences');
  else {
    out.push('');
    for (const difference of report.differences) out.push(describe(difference));
    out.push('');
    out.push(
      report.repair
        ? `${report.differences.length} difference(s): ${report.repaired} repaired, ${report.left} left`
        : `${report.differences.length} difference(s); run with --repair to repair them`,
    );
  }
  process.stdout.write(`${out.join('\n')}\n`);
}

async function main(): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        repair: { type: 'boolean', default: false },
        quarantine: { type: 'boolean', default: false },
        'remove-missing': { type: 'boolean', default: false },
        force: { type: 'boolean', default: false },
        quick: { type: 'boolean', default: false },
        json: { type: 'boolean', default: false },
        help: { type: 'boolean', default: false },
      },
    }));
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  if (values.help) {
    process.stdout.write(`${usage}\n`);
    return exit.clean;
  }
  const needsRepair = (['quarantine', 'remove-missing', 'force'] as const).find(
    (option) => values[option] && !values.repair,
  );
  if (needsRepair) throw new UsageError(`--${needsRepair} goes with --repair`);

  const config = loadConfig();
  const catalog = catalogOf(config);
  // A missing SQLite file is the wrong GATEWAY_DATA_DIR (or DATABASE_URL unset), not an empty
  // catalog: opening it would make one, against which every blob would look like an orphan.
  if (!config.databaseUrl && !existsSync(path.join(config.dataDir, sqliteFileName)))
    throw new Error(
      `there is no catalog at ${path.join(config.dataDir, sqliteFileName)}: set GATEWAY_DATA_DIR (or DATABASE_URL) as the gateway has them`,
    );
  const store = await openStore({
    databaseUrl: config.databaseUrl,
    dataDir: config.dataDir,
    database: config.database,
  });
  try {
    const report = await fsckDataStore(store.db, config.dataStore, {
      checksums: !values.quick,
      repair: values.repair,
      quarantine: values.quarantine,
      removeMissing: values['remove-missing'],
      force: values.force,
    });
    if (values.json) process.stdout.write(`${JSON.stringify({ catalog, ...report }, null, 2)}\n`);
    else print(report, catalog);
    if (report.differences.length === 0) return exit.clean;
    return report.left === 0 ? exit.repaired : exit.left;
  } finally {
    await store.close();
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    if (error instanceof UsageError) {
      console.error(`${error.message}\n${usage}`);
      process.exit(exit.usage);
    }
    // Refused, misconfigured, or a database or store that cannot be reached: what it says, no stack.
    const message = error instanceof Error ? error.message : String(error);
    const code = (error as { code?: unknown }).code;
    console.error(
      `fsck: ${message}${typeof code === 'string' && !message.includes(code) ? ` (${code})` : ''}`,
    );
    process.exit(exit.failed);
  },
);
