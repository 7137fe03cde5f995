import type { Kysely } from 'kysely';

/**
 * Tools as users and administrators keep them (routes.md §17, §18), and tool requests. A tool gains
 * whether it is public (everyone may see and use it; the built-in tools, and tools a public app
 * already ran, start public), its container settings and implementation (JSON documents, as
 * clients send them) and the few settings listings show. A tool request is a user's request to
 * install a tool: its fields (what listings show in columns, the rest as sent in one JSON
 * document) and its status history, each status one of the status codes (seeded here; an
 * administrator naming an unknown status adds a code). Times are milliseconds since the epoch.
 */

/** The status codes a fresh store knows, with fixed ids (as the DE's are seeded). */
export const seededStatusCodes: readonly { id: string; name: string; description: string }[] = [
  {
    id: '1fb4295b-684e-4657-afab-6cc0912312b1',
    name: 'Submitted',
    description: 'The request has been submitted, but not acted upon by the support team.',
  },
  {
    id: 'afbbcda8-49c3-47c0-9f28-de87cbfbcf6d',
    name: 'Pending',
    description: 'The support team is waiting for a response from the requesting user.',
  },
  {
    id: 'b15fd4b9-a8d3-46a7-9f67-a7dc3a1cf5b8',
    name: 'Evaluation',
    description: 'The support team is evaluating the tool for installation.',
  },
  {
    id: '4e4c5a1f-7b0e-4f1d-b5e3-0b1f6d9c2a01',
    name: 'Installation',
    description: 'The support team is installing the tool.',
  },
  {
    id: '6d8a4c2e-1f3b-4a5c-9e7d-2b4f6a8c0e02',
    name: 'Validation',
    description: 'The support team is verifying that the installation was successful.',
  },
  {
    id: '8f2b6d4a-3c5e-4b7f-a1d9-4c6e8a0b2d03',
    name: 'Completion',
    description: 'The tool was installed successfully.',
  },
  {
    id: '9a3c7e5b-4d6f-4c8a-b2e0-5d7f9b1c3e04',
    name: 'Failed',
    description: 'The tool could not be installed.',
  },
];

/** The columns this migration reads and writes, as they were when it was written. */
interface Tables {
  tools: { id: string; integrator: string; is_public: boolean };
  app_version_tools: { app_version_id: string; tool_id: string | null };
  app_versions: { id: string; app_id: string };
  apps: { id: string; is_public: boolean; deleted: boolean };
  tool_request_status_codes: { id: string; name: string; description: string; ordinal: number };
}

export async function up(untyped: Kysely<unknown>): Promise<void> {
  const tools = () => untyped.schema.alterTable('tools');
  await tools()
    .addColumn('is_public', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
  // JSON: `{image: {name, tag, url?, osg_image_path?}, min_cpu_cores?, memory_limit?, ...}`.
  await tools().addColumn('container', 'text').execute();
  // JSON: `{implementor, implementor_email, test: {input_files, output_files}}`.
  await tools().addColumn('implementation', 'text').execute();
  await tools()
    .addColumn('restricted', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
  await tools()
    .addColumn('interactive', 'boolean', (col) => col.notNull().defaultTo(false))
    .execute();
  await tools().addColumn('time_limit_seconds', 'integer').execute();
  await tools().addColumn('modified_on', 'bigint').execute();

  const db = untyped as unknown as Kysely<Tables>;
  // What sharing took for public until now: the platform's tools and those public apps run.
  await db
    .updateTable('tools')
    .set({ is_public: true })
    .where((eb) =>
      eb.or([
        eb('integrator', '=', 'platform'),
        eb(
          'id',
          'in',
          eb
            .selectFrom('app_version_tools')
            .innerJoin('app_versions', 'app_versions.id', 'app_version_tools.app_version_id')
            .innerJoin('apps', 'apps.id', 'app_versions.app_id')
            .select('app_version_tools.tool_id')
            .where('apps.is_public', '=', true)
            .where('apps.deleted', '=', false)
            .where('app_version_tools.tool_id', 'is not', null)
            .$narrowType<{ tool_id: string }>(),
        ),
      ]),
    )
    .execute();
  await untyped.schema
    .createIndex('tools_public_name')
    .on('tools')
    .columns(['is_public', 'name'])
    .execute();
  await untyped.schema.createIndex('tools_integrator').on('tools').column('integrator').execute();

  await untyped.schema
    .createTable('tool_request_status_codes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('description', 'text', (col) => col.notNull().defaultTo(''))
    // Listings show codes in this order (the order a request usually goes through them).
    .addColumn('ordinal', 'integer', (col) => col.notNull())
    .execute();
  await db
    .insertInto('tool_request_status_codes')
    .values(seededStatusCodes.map((code, index) => ({ ...code, ordinal: index + 1 })))
    .execute();

  await untyped.schema
    .createTable('tool_requests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('requested_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('name', 'varchar(255)', (col) => col.notNull())
    .addColumn('version', 'varchar(255)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    // JSON: every other field of the request as the client sent it.
    .addColumn('details', 'text', (col) => col.notNull())
    // The tool installed for it, once there is one.
    .addColumn('tool_id', 'varchar(36)')
    .addColumn('date_submitted', 'bigint', (col) => col.notNull())
    .execute();
  await untyped.schema
    .createIndex('tool_requests_requested_by')
    .on('tool_requests')
    .column('requested_by')
    .execute();

  await untyped.schema
    .createTable('tool_request_statuses')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('tool_request_id', 'varchar(36)', (col) =>
      col.notNull().references('tool_requests.id').onDelete('cascade'),
    )
    .addColumn('status_code_id', 'varchar(36)', (col) =>
      col.notNull().references('tool_request_status_codes.id'),
    )
    // 1, 2, …: the highest is the request's current status.
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('status_date', 'bigint', (col) => col.notNull())
    .addColumn('updated_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('comments', 'text', (col) => col.notNull().defaultTo(''))
    .addUniqueConstraint('tool_request_statuses_position', ['tool_request_id', 'position'])
    .execute();
  await untyped.schema
    .createIndex('tool_request_statuses_code')
    .on('tool_request_statuses')
    .column('status_code_id')
    .execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  for (const table of ['tool_request_statuses', 'tool_requests', 'tool_request_status_codes'])
    await db.schema.dropTable(table).execute();
  await db.schema.dropIndex('tools_integrator').execute();
  await db.schema.dropIndex('tools_public_name').execute();
  for (const column of [
    'modified_on',
    'time_limit_seconds',
    'interactive',
    'restricted',
    'implementation',
    'container',
    'is_public',
  ])
    await db.schema.alterTable('tools').dropColumn(column).execute();
}
