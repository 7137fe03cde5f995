import { createHash } from 'node:crypto';
import type { Kysely } from 'kysely';

/**
 * The metadata service's templates and permanent-ID requests (backends.md §3.5, §3.7).
 *
 * Template tables carry a `metadata_` prefix (the reference names them `templates`, `attributes`,
 * … in a schema of their own; here they share one database with every other service). Times are
 * epoch milliseconds like every other table; the API turns them into ISO dates. Status rows carry
 * a `position` (1, 2, … per request) so "the latest status" never depends on two updates landing
 * in different milliseconds.
 *
 * The migration seeds the value types, the request types and status codes, and one DataCite-style
 * citation template so a fresh platform has something to list. Seeded ids are derived from names
 * (a name-based UUID), so every installation gets the same ones.
 */

/** A stable UUID for a seeded row, derived from its kind and name (RFC 4122 version 5 layout). */
export function seededId(kind: string, name: string): string {
  const hex = createHash('sha1').update(`platform-gateway/${kind}/${name}`).digest('hex');
  const variant = ((parseInt(hex[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

export const valueTypeNames = [
  'Timestamp',
  'Boolean',
  'Number',
  'Integer',
  'String',
  'Multiline Text',
  'URL/URI',
  'Enum',
  'OLS Ontology Term',
  'UAT Ontology Term',
  'Grouping',
] as const;

export const dataCiteTemplateId = seededId('template', 'DataCite 4 citation');

interface SeedAttribute {
  name: string;
  description: string;
  type: (typeof valueTypeNames)[number];
  required?: boolean;
  values?: string[];
  defaultValue?: string;
  attributes?: SeedAttribute[];
}

const resourceTypesGeneral = [
  'Audiovisual',
  'Collection',
  'Dataset',
  'Image',
  'InteractiveResource',
  'Model',
  'PhysicalObject',
  'Software',
  'Sound',
  'Text',
  'Workflow',
  'Other',
];
const contributorTypes = [
  'ContactPerson',
  'DataCollector',
  'DataCurator',
  'DataManager',
  'Distributor',
  'Editor',
  'HostingInstitution',
  'Producer',
  'ProjectLeader',
  'ProjectManager',
  'ProjectMember',
  'RegistrationAgency',
  'RegistrationAuthority',
  'RelatedPerson',
  'Researcher',
  'ResearchGroup',
  'RightsHolder',
  'Sponsor',
  'Supervisor',
  'WorkPackageLeader',
  'Other',
];
const dateTypes = [
  'Accepted',
  'Available',
  'Copyrighted',
  'Collected',
  'Created',
  'Issued',
  'Submitted',
  'Updated',
  'Valid',
  'Withdrawn',
  'Other',
];
const relatedIdentifierTypes = [
  'ARK',
  'arXiv',
  'bibcode',
  'DOI',
  'EAN13',
  'EISSN',
  'Handle',
  'IGSN',
  'ISBN',
  'ISSN',
  'ISTC',
  'LISSN',
  'LSID',
  'PMID',
  'PURL',
  'UPC',
  'URL',
  'URN',
  'w3id',
];
const relationTypes = [
  'IsCitedBy',
  'Cites',
  'IsSupplementTo',
  'IsSupplementedBy',
  'IsContinuedBy',
  'Continues',
  'IsDescribedBy',
  'Describes',
  'HasMetadata',
  'IsMetadataFor',
  'HasVersion',
  'IsVersionOf',
  'IsNewVersionOf',
  'IsPreviousVersionOf',
  'IsPartOf',
  'HasPart',
  'IsReferencedBy',
  'References',
  'IsDocumentedBy',
  'Documents',
  'IsCompiledBy',
  'Compiles',
  'IsVariantFormOf',
  'IsOriginalFormOf',
  'IsIdenticalTo',
  'IsReviewedBy',
  'Reviews',
  'IsDerivedFrom',
  'IsSourceOf',
  'IsRequiredBy',
  'Requires',
];

/**
 * DataCite Metadata Schema 4 properties: the six mandatory ones are required (the identifier
 * excepted: the platform writes `identifier`, `identifierType` and `publicationYear` when it mints).
 */
const dataCiteAttributes: SeedAttribute[] = [
  {
    name: 'identifier',
    description:
      'The DOI or ARK of the resource. Assigned by the platform when the permanent identifier is minted; leave it empty.',
    type: 'String',
  },
  {
    name: 'identifierType',
    description: 'The kind of identifier (assigned with the identifier).',
    type: 'Enum',
    values: ['DOI', 'ARK'],
    defaultValue: 'DOI',
  },
  {
    name: 'creator',
    description:
      'A researcher involved in producing the data, in priority order (repeat for each creator).',
    type: 'Grouping',
    required: true,
    attributes: [
      {
        name: 'creatorName',
        description: 'Full name, "Family, Given" for people, or the name of an organisation.',
        type: 'String',
        required: true,
      },
      {
        name: 'creatorNameIdentifier',
        description: 'A persistent identifier of the creator, such as an ORCID iD URL.',
        type: 'URL/URI',
      },
      {
        name: 'creatorAffiliation',
        description: 'The organisation the creator is affiliated with.',
        type: 'String',
      },
    ],
  },
  {
    name: 'title',
    description: 'A name or title by which the resource is known.',
    type: 'String',
    required: true,
  },
  {
    name: 'publisher',
    description: 'The holder or distributor of the data, or the institution that produced it.',
    type: 'String',
    required: true,
  },
  {
    name: 'publicationYear',
    description: 'The year the data is or will be made public (YYYY).',
    type: 'Integer',
    required: true,
  },
  {
    name: 'resourceTypeGeneral',
    description: 'The general type of the resource.',
    type: 'Enum',
    required: true,
    values: resourceTypesGeneral,
    defaultValue: 'Dataset',
  },
  {
    name: 'resourceType',
    description: 'A free-text description of the resource type, such as "Genome assembly".',
    type: 'String',
    required: true,
  },
  {
    name: 'subject',
    description: 'A subject, keyword or classification phrase (repeat for each).',
    type: 'String',
  },
  {
    name: 'contributor',
    description:
      'An institution or person responsible for collecting, managing or otherwise contributing to the resource.',
    type: 'Grouping',
    attributes: [
      {
        name: 'contributorName',
        description: 'Full name, "Family, Given" for people, or the name of an organisation.',
        type: 'String',
        required: true,
      },
      {
        name: 'contributorType',
        description: 'The role of the contributor.',
        type: 'Enum',
        required: true,
        values: contributorTypes,
      },
    ],
  },
  { name: 'date', description: 'A date relevant to the resource.', type: 'Timestamp' },
  { name: 'dateType', description: 'What the date means.', type: 'Enum', values: dateTypes },
  {
    name: 'language',
    description:
      'The primary language of the resource, as an IETF BCP 47 or ISO 639-1 code such as "en".',
    type: 'String',
  },
  {
    name: 'relatedIdentifier',
    description: 'An identifier of a related resource.',
    type: 'Grouping',
    attributes: [
      {
        name: 'relatedIdentifierValue',
        description: 'The identifier of the related resource.',
        type: 'String',
        required: true,
      },
      {
        name: 'relatedIdentifierType',
        description: 'The kind of identifier.',
        type: 'Enum',
        required: true,
        values: relatedIdentifierTypes,
      },
      {
        name: 'relationType',
        description: 'How this resource relates to the other one.',
        type: 'Enum',
        required: true,
        values: relationTypes,
      },
    ],
  },
  { name: 'size', description: 'Size information, such as "15 files" or "3 GB".', type: 'String' },
  {
    name: 'format',
    description: 'A technical format, such as a file extension or media type.',
    type: 'String',
  },
  { name: 'version', description: 'The version number of the resource.', type: 'String' },
  {
    name: 'rights',
    description: 'A rights statement or licence name, such as "CC BY 4.0".',
    type: 'String',
  },
  { name: 'rightsURI', description: 'The address of the licence.', type: 'URL/URI' },
  {
    name: 'description',
    description: 'An abstract or other description of the resource.',
    type: 'Multiline Text',
  },
];

const seedUser = 'system';

export const permanentIdRequestTypes = [
  { type: 'DOI', description: 'Data Object Identifier' },
  { type: 'ARK', description: 'Archival Resource Key' },
];

export const permanentIdRequestStatuses = [
  { name: 'Submitted', description: 'The request has been submitted.' },
  { name: 'Pending', description: 'The request is waiting for the requester.' },
  { name: 'Evaluation', description: 'A curator is evaluating the request.' },
  { name: 'Approved', description: 'The request has been approved.' },
  { name: 'Completion', description: 'The identifier has been created.' },
  { name: 'Failed', description: 'Creating the identifier failed.' },
];

async function createTemplateTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('metadata_value_types')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull().unique())
    .execute();

  await db.schema
    .createTable('metadata_templates')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull())
    .addColumn('description', 'text')
    .addColumn('deleted', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('modified_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('modified_on', 'bigint', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('metadata_templates_name')
    .on('metadata_templates')
    .column('name')
    .execute();

  await db.schema
    .createTable('metadata_attributes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull())
    .addColumn('description', 'text', (col) => col.notNull())
    .addColumn('required', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('value_type_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_value_types.id'),
    )
    // Free-form JSON the template editor keeps per attribute (e.g. ontology lookup settings), as text.
    .addColumn('settings', 'text')
    .addColumn('created_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('modified_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('created_on', 'bigint', (col) => col.notNull())
    .addColumn('modified_on', 'bigint', (col) => col.notNull())
    .execute();

  await db.schema
    .createTable('metadata_template_attrs')
    .addColumn('template_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_templates.id').onDelete('cascade'),
    )
    .addColumn('attribute_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addColumn('display_order', 'integer', (col) => col.notNull())
    .addPrimaryKeyConstraint('metadata_template_attrs_pk', ['template_id', 'attribute_id'])
    .execute();
  await db.schema
    .createIndex('metadata_template_attrs_attribute')
    .on('metadata_template_attrs')
    .column('attribute_id')
    .execute();

  await db.schema
    .createTable('metadata_attr_enum_values')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('attribute_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addColumn('value', 'varchar(1024)', (col) => col.notNull())
    .addColumn('is_default', 'boolean', (col) => col.notNull().defaultTo(false))
    .addColumn('display_order', 'integer', (col) => col.notNull())
    .addUniqueConstraint('metadata_attr_enum_values_unique', ['attribute_id', 'value'])
    .execute();

  await db.schema
    .createTable('metadata_attr_synonyms')
    .addColumn('attribute_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addColumn('synonym_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addPrimaryKeyConstraint('metadata_attr_synonyms_pk', ['attribute_id', 'synonym_id'])
    .execute();

  // Child attributes of a Grouping attribute; a child belongs to exactly one parent.
  await db.schema
    .createTable('metadata_attr_attrs')
    .addColumn('parent_id', 'varchar(36)', (col) =>
      col.notNull().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addColumn('child_id', 'varchar(36)', (col) =>
      col.notNull().unique().references('metadata_attributes.id').onDelete('cascade'),
    )
    .addColumn('display_order', 'integer', (col) => col.notNull())
    .execute();
  await db.schema
    .createIndex('metadata_attr_attrs_parent')
    .on('metadata_attr_attrs')
    .column('parent_id')
    .execute();
}

async function createPermanentIdTables(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('permanent_id_request_types')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('type', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('description', 'text')
    .execute();

  await db.schema
    .createTable('permanent_id_request_status_codes')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('name', 'varchar(64)', (col) => col.notNull().unique())
    .addColumn('description', 'text')
    .execute();

  await db.schema
    .createTable('permanent_id_requests')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('requested_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('type', 'varchar(36)', (col) =>
      col.notNull().references('permanent_id_request_types.id'),
    )
    .addColumn('target_id', 'varchar(36)', (col) => col.notNull())
    .addColumn('target_type', 'varchar(16)', (col) => col.notNull())
    .addColumn('original_path', 'text')
    .addColumn('permanent_id', 'text')
    .addUniqueConstraint('permanent_id_requests_target_type', ['target_id', 'type'])
    .execute();
  await db.schema
    .createIndex('permanent_id_requests_requested_by')
    .on('permanent_id_requests')
    .column('requested_by')
    .execute();

  await db.schema
    .createTable('permanent_id_request_statuses')
    .addColumn('id', 'varchar(36)', (col) => col.primaryKey())
    .addColumn('permanent_id_request', 'varchar(36)', (col) =>
      col.notNull().references('permanent_id_requests.id').onDelete('cascade'),
    )
    .addColumn('permanent_id_request_status_code', 'varchar(36)', (col) =>
      col.notNull().references('permanent_id_request_status_codes.id'),
    )
    .addColumn('position', 'integer', (col) => col.notNull())
    .addColumn('date_assigned', 'bigint', (col) => col.notNull())
    .addColumn('updated_by', 'varchar(512)', (col) => col.notNull())
    .addColumn('comments', 'text')
    .addUniqueConstraint('permanent_id_request_statuses_position', [
      'permanent_id_request',
      'position',
    ])
    .execute();
}

/** Inserts one seeded attribute (and its enum values and children); ids derive from the path of names. */
async function seedAttribute(
  db: Kysely<any>,
  attribute: SeedAttribute,
  key: string,
  now: number,
): Promise<string> {
  const id = seededId('attribute', key);
  await db
    .insertInto('metadata_attributes')
    .values({
      id,
      name: attribute.name,
      description: attribute.description,
      required: attribute.required ?? false,
      value_type_id: seededId('value-type', attribute.type),
      settings: null,
      created_by: seedUser,
      modified_by: seedUser,
      created_on: now,
      modified_on: now,
    })
    .execute();
  for (const [order, value] of (attribute.values ?? []).entries()) {
    await db
      .insertInto('metadata_attr_enum_values')
      .values({
        id: seededId('enum-value', `${key}/${value}`),
        attribute_id: id,
        value,
        is_default: value === attribute.defaultValue,
        display_order: order,
      })
      .execute();
  }
  for (const [order, child] of (attribute.attributes ?? []).entries()) {
    const childId = await seedAttribute(db, child, `${key}/${child.name}`, now);
    await db
      .insertInto('metadata_attr_attrs')
      .values({ parent_id: id, child_id: childId, display_order: order })
      .execute();
  }
  return id;
}

async function seed(db: Kysely<any>): Promise<void> {
  const now = Date.now();
  await db
    .insertInto('metadata_value_types')
    .values(valueTypeNames.map((name) => ({ id: seededId('value-type', name), name })))
    .execute();
  await db
    .insertInto('permanent_id_request_types')
    .values(
      permanentIdRequestTypes.map((row) => ({
        id: seededId('pid-request-type', row.type),
        ...row,
      })),
    )
    .execute();
  await db
    .insertInto('permanent_id_request_status_codes')
    .values(
      permanentIdRequestStatuses.map((row) => ({
        id: seededId('pid-request-status', row.name),
        ...row,
      })),
    )
    .execute();

  await db
    .insertInto('metadata_templates')
    .values({
      id: dataCiteTemplateId,
      name: 'DataCite 4 citation',
      description:
        'Citation metadata following the DataCite Metadata Schema 4; needed to request a DOI for a folder.',
      deleted: false,
      created_by: seedUser,
      modified_by: seedUser,
      created_on: now,
      modified_on: now,
    })
    .execute();
  for (const [order, attribute] of dataCiteAttributes.entries()) {
    const id = await seedAttribute(db, attribute, `DataCite 4 citation/${attribute.name}`, now);
    await db
      .insertInto('metadata_template_attrs')
      .values({ template_id: dataCiteTemplateId, attribute_id: id, display_order: order })
      .execute();
  }
}

export async function up(database: Kysely<unknown>): Promise<void> {
  const db = database as Kysely<any>;
  await createTemplateTables(db);
  await createPermanentIdTables(db);
  await seed(db);
}

export async function down(database: Kysely<unknown>): Promise<void> {
  const db = database as Kysely<any>;
  for (const table of [
    'permanent_id_request_statuses',
    'permanent_id_requests',
    'permanent_id_request_status_codes',
    'permanent_id_request_types',
    'metadata_attr_attrs',
    'metadata_attr_synonyms',
    'metadata_attr_enum_values',
    'metadata_template_attrs',
    'metadata_attributes',
    'metadata_templates',
    'metadata_value_types',
  ]) {
    await db.schema.dropTable(table).execute();
  }
}
