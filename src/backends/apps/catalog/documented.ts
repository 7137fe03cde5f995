// What the catalog room's routes (listings, categories, communities, hierarchies and ontologies,
// marks, AVU metadata, reference genomes) take and answer, for the OpenAPI document: documentation
// only (the service's documented.ts composes the rooms' tables and says how they were recorded).
import {
  loose,
  requiringAll,
  type DocumentedSchemas,
  type JsonSchema,
} from '../../../common/documented-schemas.ts';
import {
  appListingRequired,
  appVersionProperties,
  listedAppProperties,
  unversionedAppProperties,
  versionedAppRequired,
  detailedAppProperties,
  adminAppDetailsProperties,
  appToolDetail,
  appVersion,
  namedItem,
  savedApp,
} from '../shared/index.ts';

/** An AVU as stored: an attribute, value and unit on a target, with who set it when. */
const avu = requiringAll({
  id: { type: 'string' },
  attr: { type: 'string' },
  value: { type: 'string' },
  unit: { type: 'string' },
  target_id: { type: 'string' },
  target_type: { type: 'string' },
  created_by: { type: 'string' },
  modified_by: { type: 'string' },
  created_on: { type: 'integer' },
  modified_on: { type: 'integer' },
  avus: { type: 'array', items: {} },
});

const metadataAvus = requiringAll({ avus: { type: 'array', items: avu } });

/** What a client sends of an AVU. */
const sentAvuProperties = {
  attr: { type: 'string' },
  value: { type: 'string' },
  unit: { type: 'string' },
} satisfies Record<string, JsonSchema>;

/** A body of AVUs, each of `properties`. */
const avusBody = (properties: Record<string, JsonSchema>): JsonSchema => ({
  type: 'object',
  properties: { avus: { type: 'array', items: { type: 'object', properties } } },
});

const metadataAvusBody = avusBody(sentAvuProperties);

/** What every category answer gives of a category. */
const categoryProperties = {
  system_id: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  is_public: { type: 'boolean' },
  total: { type: 'integer' },
} satisfies Record<string, JsonSchema>;

const appCategory = requiringAll({
  ...categoryProperties,
  parent_id: { type: 'string', nullable: true },
});

const appHierarchy: JsonSchema = {
  type: 'object',
  properties: {
    hierarchy: {
      type: 'object',
      properties: {
        iri: { type: 'string' },
        label: { type: 'string' },
        description: { type: 'string' },
        subclasses: { type: 'array', items: { type: 'object', additionalProperties: true } },
      },
    },
  },
};

/** An app under a hierarchy: its version named last, and not required. */
const hierarchyApp: JsonSchema = {
  type: 'object',
  properties: { ...unversionedAppProperties, ...appVersionProperties },
  required: [...appListingRequired],
};

const ontologyApps: JsonSchema = {
  type: 'object',
  properties: { total: { type: 'integer' }, apps: { type: 'array', items: hierarchyApp } },
};

const referenceGenome = requiringAll({
  id: { type: 'string' },
  name: { type: 'string' },
  path: { type: 'string' },
  deleted: { type: 'boolean' },
  created_by: { type: 'string' },
  created_on: { type: 'string' },
  last_modified_by: { type: 'string' },
  last_modified_on: { type: 'string' },
});

const referenceGenomeBody: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, path: { type: 'string' } },
};

const listedApp: JsonSchema = {
  type: 'object',
  properties: listedAppProperties,
  required: [...appListingRequired],
};

const ratingSummary: JsonSchema = {
  type: 'object',
  properties: { average: { type: 'number' }, total: { type: 'integer' } },
};

const categoryApps = requiringAll({
  system_id: { type: 'string' },
  id: { type: 'string' },
  name: { type: 'string' },
  is_public: { type: 'boolean' },
  total: { type: 'integer' },
  apps: { type: 'array', items: listedApp },
});

const hierarchyApps = requiringAll({
  total: { type: 'integer' },
  apps: { type: 'array', items: hierarchyApp },
});

export const documented: Readonly<Record<string, DocumentedSchemas>> = {
  'GET /admin/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              // Its job counts, then its version, named last and not required.
              properties: {
                ...unversionedAppProperties,
                job_stats: { type: 'object', additionalProperties: true },
                ...appVersionProperties,
              },
              required: [...appListingRequired, 'job_stats'],
            },
          },
        },
        required: ['total', 'apps'],
      },
    },
  },
  'POST /admin/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: requiringAll({
              system_id: { type: 'string' },
              app_id: { type: 'string' },
              category_ids: { type: 'array', items: {} },
            }),
          },
        },
        required: ['categories'],
      },
    },
    body: {
      type: 'object',
      properties: {
        categories: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              app_id: { type: 'string' },
              category_ids: { type: 'array', items: {} },
              system_id: { type: 'string' },
            },
          },
        },
      },
    },
  },
  'GET /admin/apps/{appId}/metadata': { response: { '200': metadataAvus } },
  'POST /admin/apps/{appId}/metadata': {
    response: { '200': metadataAvus },
    body: metadataAvusBody,
  },
  'PUT /admin/apps/{appId}/metadata': {
    response: { '200': { type: 'object', properties: { avus: { type: 'array', items: {} } } } },
    body: { type: 'object', properties: { avus: { type: 'array', items: {} } } },
  },
  'GET /admin/apps/{systemId}/{appId}/details': {
    response: { '200': requiringAll(adminAppDetailsProperties) },
  },
  'GET /admin/apps/categories': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: requiringAll({
              ...categoryProperties,
              categories: { type: 'array', items: {} },
            }),
          },
        },
        required: ['categories'],
      },
    },
  },
  'POST /admin/apps/categories/{systemId}': {
    response: { '200': appCategory },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, parent_id: { type: 'string' } },
    },
  },
  'DELETE /admin/apps/categories/{systemId}/{categoryId}': {
    response: {
      '200': { type: 'object', properties: { id: { type: 'string' } }, required: ['id'] },
    },
  },
  'PATCH /admin/apps/categories/{systemId}/{categoryId}': {
    response: { '200': appCategory },
    body: {
      type: 'object',
      properties: { name: { type: 'string' }, parent_id: { type: 'string', nullable: true } },
    },
  },
  'GET /admin/apps/categories/search': {
    response: {
      '200': {
        type: 'object',
        properties: { categories: { type: 'array', items: appCategory } },
        required: ['categories'],
      },
    },
  },
  'GET /admin/apps/communities/{communityId}/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: { type: 'array', items: { type: 'object', properties: unversionedAppProperties } },
        },
      },
    },
  },
  'GET /admin/ontologies': {
    response: {
      '200': {
        type: 'object',
        properties: {
          ontologies: {
            type: 'array',
            items: requiringAll({
              iri: { type: 'string' },
              version: { type: 'string' },
              created_by: { type: 'string' },
              created_on: { type: 'integer' },
              active: { type: 'boolean' },
            }),
          },
        },
        required: ['ontologies'],
      },
    },
  },
  'POST /admin/ontologies/{version}': {
    response: {
      '200': requiringAll({
        version: { type: 'string' },
        applied_by: { type: 'string' },
        applied: { type: 'integer' },
      }),
    },
    noBody: true,
  },
  'GET /admin/ontologies/{version}/{rootIri}': { response: { '200': appHierarchy } },
  'GET /admin/ontologies/{version}/{rootIri}/apps': { response: { '200': ontologyApps } },
  'GET /admin/ontologies/{version}/{rootIri}/unclassified': { response: { '200': ontologyApps } },
  'POST /admin/reference-genomes': {
    response: { '200': referenceGenome },
    body: referenceGenomeBody,
  },
  'DELETE /admin/reference-genomes/{id}': { response: { '200': referenceGenome } },
  'PATCH /admin/reference-genomes/{id}': {
    response: { '200': loose(referenceGenome) },
    body: referenceGenomeBody,
  },
  'GET /apps': {
    response: {
      '200': requiringAll({
        total: { type: 'integer' },
        apps: { type: 'array', items: listedApp },
      }),
    },
  },
  'DELETE /apps/{appId}/communities': {
    response: { '200': { type: 'object', properties: { avus: { type: 'array', items: {} } } } },
  },
  'POST /apps/{appId}/communities': { response: { '200': metadataAvus }, body: metadataAvusBody },
  'GET /apps/{appId}/metadata': { response: { '200': metadataAvus } },
  'POST /apps/{appId}/metadata': {
    response: { '200': metadataAvus },
    body: avusBody({ ...sentAvuProperties, id: { type: 'string' } }),
  },
  'PUT /apps/{appId}/metadata': {
    response: { '200': requiringAll({ avus: { type: 'array', items: loose(avu) } }) },
    body: metadataAvusBody,
  },
  'GET /apps/{systemId}/{appId}': { response: { '200': savedApp } },
  'GET /apps/{systemId}/{appId}/details': {
    response: {
      '200': requiringAll({
        ...detailedAppProperties,
        // The caller's own rating beside the average, when they gave one.
        rating: {
          type: 'object',
          properties: {
            average: { type: 'integer' },
            total: { type: 'integer' },
            user: { type: 'integer' },
          },
          required: ['average', 'total'],
        },
        tools: { type: 'array', items: appToolDetail },
        references: { type: 'array', items: {} },
        categories: { type: 'array', items: namedItem },
        suggested_categories: { type: 'array', items: {} },
        versions: { type: 'array', items: appVersion },
        job_stats: {
          type: 'object',
          properties: {
            job_count_completed: { type: 'integer' },
            job_last_completed: { type: 'string' },
          },
          required: ['job_count_completed'],
        },
      }),
    },
  },
  'DELETE /apps/{systemId}/{appId}/favorite': {
    response: { '200': { type: 'object', additionalProperties: true } },
  },
  'PUT /apps/{systemId}/{appId}/favorite': {
    response: { '200': { type: 'object', additionalProperties: true } },
    noBody: true,
  },
  'GET /apps/{systemId}/{appId}/listing': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: listedAppProperties,
              required: [...versionedAppRequired],
            },
          },
        },
        required: ['total', 'apps'],
      },
    },
  },
  'DELETE /apps/{systemId}/{appId}/rating': { response: { '200': ratingSummary } },
  'POST /apps/{systemId}/{appId}/rating': {
    response: { '200': ratingSummary },
    body: { type: 'object', properties: { rating: { type: 'integer' } } },
  },
  'GET /apps/categories': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: requiringAll({
              system_id: { type: 'string' },
              id: { type: 'string' },
              name: { type: 'string' },
              is_public: { type: 'boolean' },
              total: { type: 'integer' },
              categories: { type: 'array', items: {} },
            }),
          },
        },
        required: ['categories'],
      },
    },
  },
  'GET /apps/categories/{systemId}/{categoryId}': { response: { '200': categoryApps } },
  'GET /apps/categories/featured': { response: { '200': categoryApps } },
  'GET /apps/communities/{communityId}/apps': {
    response: {
      '200': {
        type: 'object',
        properties: {
          total: { type: 'integer' },
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: unversionedAppProperties,
              required: [...appListingRequired],
            },
          },
        },
        required: ['total', 'apps'],
      },
    },
  },
  'GET /apps/hierarchies': {
    response: {
      '200': {
        type: 'object',
        properties: {
          hierarchies: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                iri: { type: 'string' },
                label: { type: 'string' },
                description: { type: 'string' },
                subclasses: { type: 'array', items: {} },
              },
            },
          },
        },
        required: ['hierarchies'],
      },
    },
  },
  'GET /apps/hierarchies/{rootIri}': { response: { '200': appHierarchy } },
  'GET /apps/hierarchies/{rootIri}/apps': { response: { '200': hierarchyApps } },
  'GET /apps/hierarchies/{rootIri}/unclassified': { response: { '200': hierarchyApps } },
  'GET /reference-genomes': {
    response: {
      '200': {
        type: 'object',
        properties: { genomes: { type: 'array', items: referenceGenome } },
        required: ['genomes'],
      },
    },
  },
  'GET /reference-genomes/{id}': { response: { '200': referenceGenome } },
};
