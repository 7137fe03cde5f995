// The apps a fresh platform ships: each runs in-process on the embedded executor against the data
// store, so the catalog is never empty. Ids are fixed, so every installation (and every
// quick launch or analysis that names them) agrees on them.
import type { Kysely } from 'kysely';
import type { Database } from '../../../store/schema.ts';
import { urlImportApp } from '../../../common/url-import.ts';
import type { AppDefinition } from '../shared/index.ts';
import { writeAvus } from '../../metadata/index.ts';
import { featuredAppsCommunity } from './app-communities.ts';
import { communityAvuAttribute } from '../../../common/app-community-avus.ts';

export const platformIntegrator = 'platform';

interface BuiltInApp {
  id: string;
  versionId: string;
  name: string;
  description: string;
  tool: { id: string; name: string; description: string; executor: string };
  definition: AppDefinition;
}

const input = (id: string, type: string, label: string, extra: Record<string, unknown> = {}) => ({
  id,
  type,
  name: '',
  label,
  description: '',
  required: true,
  isVisible: true,
  omit_if_blank: false,
  order: 0,
  ...extra,
});

export const builtInApps: readonly BuiltInApp[] = [
  {
    id: urlImportApp.id,
    versionId: '8b3e7f1f-2c2d-4d66-8b62-1d2a2b100001',
    name: 'URL import',
    description: 'Fetches a file from an http(s) URL into a folder of the data store.',
    tool: {
      id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000001',
      name: 'url-import',
      description: 'Streams a URL into the data store',
      executor: 'url-import',
    },
    definition: {
      steps: [
        {
          id: '9d5a8a2a-3d3e-4e77-9c73-2e3b3c200001',
          name: 'import',
          tool_id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000001',
        },
      ],
      groups: [
        {
          id: '3c4f8b21-3d3e-4e77-9c73-2e3b3c000001',
          name: 'source',
          label: 'Source',
          parameters: [
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000001', 'Text', 'URL', {
              name: 'address',
              description: 'An http or https URL',
            }),
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000002', 'Text', 'File name', {
              name: 'file-name',
              required: false,
              description: 'Defaults to the last segment of the URL',
            }),
          ],
        },
      ],
    },
  },
  {
    id: '7a2d6f0e-1b1c-4c55-9a51-0c1f1a000002',
    versionId: '8b3e7f1f-2c2d-4d66-8b62-1d2a2b100002',
    name: 'Word count',
    description: 'Counts the lines, words and bytes of a text file, like wc.',
    tool: {
      id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000002',
      name: 'word-count',
      description: 'Counts lines, words and bytes',
      executor: 'word-count',
    },
    definition: {
      steps: [
        {
          id: '9d5a8a2a-3d3e-4e77-9c73-2e3b3c200002',
          name: 'count',
          tool_id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000002',
        },
      ],
      groups: [
        {
          id: '3c4f8b21-3d3e-4e77-9c73-2e3b3c000002',
          name: 'input',
          label: 'Input',
          parameters: [
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000003', 'FileInput', 'Text file', {
              name: 'input',
            }),
          ],
        },
      ],
    },
  },
  {
    id: '7a2d6f0e-1b1c-4c55-9a51-0c1f1a000003',
    versionId: '8b3e7f1f-2c2d-4d66-8b62-1d2a2b100003',
    name: 'Concatenate',
    description: 'Joins files, in the order given, into one output file.',
    tool: {
      id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000003',
      name: 'concatenate',
      description: 'Joins files like cat',
      executor: 'concatenate',
    },
    definition: {
      steps: [
        {
          id: '9d5a8a2a-3d3e-4e77-9c73-2e3b3c200003',
          name: 'concatenate',
          tool_id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000003',
        },
      ],
      groups: [
        {
          id: '3c4f8b21-3d3e-4e77-9c73-2e3b3c000003',
          name: 'files',
          label: 'Files',
          parameters: [
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000004', 'MultiFileSelector', 'Files to join', {
              name: 'inputs',
            }),
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000005', 'Text', 'Output file name', {
              name: 'output',
              required: false,
              defaultValue: 'concatenated.txt',
              order: 1,
            }),
          ],
        },
      ],
    },
  },
  {
    id: '7a2d6f0e-1b1c-4c55-9a51-0c1f1a000004',
    versionId: '8b3e7f1f-2c2d-4d66-8b62-1d2a2b100004',
    name: 'Checksum',
    description: 'Computes the MD5 or SHA-256 checksum of a file.',
    tool: {
      id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000004',
      name: 'checksum',
      description: 'md5sum / sha256sum',
      executor: 'checksum',
    },
    definition: {
      steps: [
        {
          id: '9d5a8a2a-3d3e-4e77-9c73-2e3b3c200004',
          name: 'checksum',
          tool_id: '5b3e7a10-2c2d-4d66-8b62-1d2a2b000004',
        },
      ],
      groups: [
        {
          id: '3c4f8b21-3d3e-4e77-9c73-2e3b3c000004',
          name: 'input',
          label: 'Input',
          parameters: [
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000006', 'FileInput', 'File', { name: 'input' }),
            input('4d5a9c32-4e4f-4f88-8d84-3f4c4d000007', 'TextSelection', 'Algorithm', {
              name: 'algorithm',
              required: false,
              order: 1,
              defaultValue: 'md5',
              arguments: [
                {
                  id: '6e6b0d43-5f5a-4a99-8e95-4a5d5e000001',
                  name: 'md5',
                  value: 'md5',
                  display: 'MD5',
                  isDefault: true,
                },
                {
                  id: '6e6b0d43-5f5a-4a99-8e95-4a5d5e000002',
                  name: 'sha256',
                  value: 'sha256',
                  display: 'SHA-256',
                  isDefault: false,
                },
              ],
            }),
          ],
        },
      ],
    },
  },
];

/**
 * Version 1 of each built-in app, with its tool; written once, kept up to date with this file on
 * every start (but for its tool's description and version, which administrators may change). A built-in app joins Featured Apps when first installed; administrators may take it
 * out later (a later start does not put it back).
 */
export async function installBuiltInApps(db: Kysely<Database>, now: number): Promise<void> {
  await db.transaction().execute(async (trx) => {
    const installed = new Set(
      (
        await trx
          .selectFrom('apps')
          .select('id')
          .where(
            'id',
            'in',
            builtInApps.map((app) => app.id),
          )
          .execute()
      ).map((row) => row.id),
    );
    for (const app of builtInApps) {
      if (!installed.has(app.id))
        await writeAvus(
          trx,
          platformIntegrator,
          now,
          { id: app.id, type: 'app' },
          [{ attr: communityAvuAttribute, value: featuredAppsCommunity, unit: '' }],
          false,
        );
      // What runs is kept up to date; the descriptive fields are written once, since
      // administrators may change them (PATCH /admin/tools/{id}).
      const tool = {
        name: app.tool.name,
        type: 'executable',
        executor: app.tool.executor,
        location: 'embedded',
        is_public: true,
      };
      await trx
        .insertInto('tools')
        .values({
          id: app.tool.id,
          integrator: platformIntegrator,
          created_on: now,
          description: app.tool.description,
          version: '1',
          ...tool,
        })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(tool))
        .execute();
      const row = {
        name: app.name,
        description: app.description,
        integrator_name: 'Platform',
        integrator_email: '',
        is_public: true,
        is_blessed: true,
      };
      await trx
        .insertInto('apps')
        .values({
          id: app.id,
          integrator: platformIntegrator,
          integration_date: now,
          edited_date: now,
          ...row,
        })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(row))
        .execute();
      const version = { definition: JSON.stringify(app.definition) };
      await trx
        .insertInto('app_versions')
        .values({
          id: app.versionId,
          app_id: app.id,
          version: '1.0',
          version_order: 1,
          created_by: platformIntegrator,
          created_on: now,
          ...version,
        })
        .onConflict((conflict) => conflict.column('id').doUpdateSet(version))
        .execute();
      await trx
        .insertInto('app_version_tools')
        .values({ app_version_id: app.versionId, step_number: 1, tool_id: app.tool.id })
        .onConflict((conflict) => conflict.columns(['app_version_id', 'step_number']).doNothing())
        .execute();
    }
  });
}
