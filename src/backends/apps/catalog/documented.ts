// What the catalog room's routes (listings, categories, communities, hierarchies and ontologies,
// marks, AVU metadata, reference genomes) take and answer, for the OpenAPI document: documentation
// only (the service's documented.ts composes the rooms' tables and says how they were recorded).
import type { DocumentedSchemas, JsonSchema } from '../../../common/documented-schemas.ts';
import {
  appListingRequired,
  listedAppProperties,
  versionedAppRequired,
  pipelineEligibility,
  rating,
  limitChecks,
  appToolDetail,
  appVersion,
  jobStats,
  appDocumentation,
  htcondorExtra,
  appTool,
  namedItem,
  savedApp,
} from '../shared/index.ts';

const metadataAvus: JsonSchema = {
  type: 'object',
  properties: {
    avus: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
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
        },
        required: [
          'id',
          'attr',
          'value',
          'unit',
          'target_id',
          'target_type',
          'created_by',
          'modified_by',
          'created_on',
          'modified_on',
          'avus',
        ],
      },
    },
  },
  required: ['avus'],
};

const metadataAvusBody: JsonSchema = {
  type: 'object',
  properties: {
    avus: {
      type: 'array',
      items: {
        type: 'object',
        properties: {
          attr: { type: 'string' },
          value: { type: 'string' },
          unit: { type: 'string' },
        },
      },
    },
  },
};

const appCategory: JsonSchema = {
  type: 'object',
  properties: {
    system_id: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    is_public: { type: 'boolean' },
    total: { type: 'integer' },
    parent_id: { type: 'string', nullable: true },
  },
  required: ['system_id', 'id', 'name', 'description', 'is_public', 'total', 'parent_id'],
};

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

const hierarchyApp: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    description: { type: 'string' },
    app_type: { type: 'string' },
    system_id: { type: 'string' },
    integrator_name: { type: 'string' },
    integrator_email: { type: 'string' },
    integration_date: { type: 'string' },
    edited_date: { type: 'string' },
    deleted: { type: 'boolean' },
    disabled: { type: 'boolean' },
    beta: { type: 'boolean' },
    is_public: { type: 'boolean' },
    isBlessed: { type: 'boolean' },
    is_favorite: { type: 'boolean' },
    can_favor: { type: 'boolean' },
    can_rate: { type: 'boolean' },
    can_run: { type: 'boolean' },
    step_count: { type: 'integer' },
    overall_job_type: { type: 'string' },
    permission: { type: 'string' },
    pipeline_eligibility: { type: 'object', additionalProperties: true },
    rating: { type: 'object', additionalProperties: true },
    limitChecks: { type: 'object', additionalProperties: true },
    version: { type: 'string' },
    version_id: { type: 'string' },
  },
  required: [...appListingRequired],
};

const ontologyApps: JsonSchema = {
  type: 'object',
  properties: { total: { type: 'integer' }, apps: { type: 'array', items: hierarchyApp } },
};

const referenceGenome: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    path: { type: 'string' },
    deleted: { type: 'boolean' },
    created_by: { type: 'string' },
    created_on: { type: 'string' },
    last_modified_by: { type: 'string' },
    last_modified_on: { type: 'string' },
  },
  required: [
    'id',
    'name',
    'path',
    'deleted',
    'created_by',
    'created_on',
    'last_modified_by',
    'last_modified_on',
  ],
};

const referenceGenomeBody: JsonSchema = {
  type: 'object',
  properties: { name: { type: 'string' }, path: { type: 'string' } },
};

/** The properties of an app in a community's app listing (no version fields). */
const communityAppProperties: Record<string, JsonSchema> = {
  id: { type: 'string' },
  name: { type: 'string' },
  description: { type: 'string' },
  app_type: { type: 'string' },
  system_id: { type: 'string' },
  integrator_name: { type: 'string' },
  integrator_email: { type: 'string' },
  integration_date: { type: 'string' },
  edited_date: { type: 'string' },
  deleted: { type: 'boolean' },
  disabled: { type: 'boolean' },
  beta: { type: 'boolean' },
  is_public: { type: 'boolean' },
  isBlessed: { type: 'boolean' },
  is_favorite: { type: 'boolean' },
  can_favor: { type: 'boolean' },
  can_rate: { type: 'boolean' },
  can_run: { type: 'boolean' },
  step_count: { type: 'integer' },
  overall_job_type: { type: 'string' },
  permission: { type: 'string' },
  pipeline_eligibility: { type: 'object', additionalProperties: true },
  rating: { type: 'object', additionalProperties: true },
  limitChecks: { type: 'object', additionalProperties: true },
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

const categoryApps: JsonSchema = {
  type: 'object',
  properties: {
    system_id: { type: 'string' },
    id: { type: 'string' },
    name: { type: 'string' },
    is_public: { type: 'boolean' },
    total: { type: 'integer' },
    apps: { type: 'array', items: listedApp },
  },
  required: ['system_id', 'id', 'name', 'is_public', 'total', 'apps'],
};

const hierarchyApps: JsonSchema = {
  type: 'object',
  properties: { total: { type: 'integer' }, apps: { type: 'array', items: hierarchyApp } },
  required: ['total', 'apps'],
};

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
              properties: {
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                app_type: { type: 'string' },
                system_id: { type: 'string' },
                integrator_name: { type: 'string' },
                integrator_email: { type: 'string' },
                integration_date: { type: 'string' },
                edited_date: { type: 'string' },
                deleted: { type: 'boolean' },
                disabled: { type: 'boolean' },
                beta: { type: 'boolean' },
                is_public: { type: 'boolean' },
                isBlessed: { type: 'boolean' },
                is_favorite: { type: 'boolean' },
                can_favor: { type: 'boolean' },
                can_rate: { type: 'boolean' },
                can_run: { type: 'boolean' },
                step_count: { type: 'integer' },
                overall_job_type: { type: 'string' },
                permission: { type: 'string' },
                pipeline_eligibility: { type: 'object', additionalProperties: true },
                rating: { type: 'object', additionalProperties: true },
                limitChecks: { type: 'object', additionalProperties: true },
                job_stats: { type: 'object', additionalProperties: true },
                version: { type: 'string' },
                version_id: { type: 'string' },
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
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                app_id: { type: 'string' },
                category_ids: { type: 'array', items: {} },
              },
              required: ['system_id', 'app_id', 'category_ids'],
            },
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
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          system_id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          beta: { type: 'boolean' },
          is_public: { type: 'boolean' },
          isBlessed: { type: 'boolean' },
          is_favorite: { type: 'boolean' },
          can_favor: { type: 'boolean' },
          can_rate: { type: 'boolean' },
          can_run: { type: 'boolean' },
          step_count: { type: 'integer' },
          overall_job_type: { type: 'string' },
          permission: { type: 'string' },
          pipeline_eligibility: pipelineEligibility,
          rating,
          limitChecks,
          tools: { type: 'array', items: appTool },
          references: { type: 'array', items: { type: 'string' } },
          categories: { type: 'array', items: {} },
          suggested_categories: { type: 'array', items: {} },
          versions: { type: 'array', items: appVersion },
          job_stats: jobStats,
          documentation: appDocumentation,
          extra: htcondorExtra,
          hierarchies: { type: 'array', items: {} },
        },
        required: [
          ...versionedAppRequired,
          'tools',
          'references',
          'categories',
          'suggested_categories',
          'versions',
          'job_stats',
          'documentation',
          'extra',
          'hierarchies',
        ],
      },
    },
  },
  'GET /admin/apps/categories': {
    response: {
      '200': {
        type: 'object',
        properties: {
          categories: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                id: { type: 'string' },
                name: { type: 'string' },
                description: { type: 'string' },
                is_public: { type: 'boolean' },
                total: { type: 'integer' },
                categories: { type: 'array', items: {} },
              },
              required: [
                'system_id',
                'id',
                'name',
                'description',
                'is_public',
                'total',
                'categories',
              ],
            },
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
          apps: {
            type: 'array',
            items: {
              type: 'object',
              properties: communityAppProperties,
            },
          },
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
            items: {
              type: 'object',
              properties: {
                iri: { type: 'string' },
                version: { type: 'string' },
                created_by: { type: 'string' },
                created_on: { type: 'integer' },
                active: { type: 'boolean' },
              },
              required: ['iri', 'version', 'created_by', 'created_on', 'active'],
            },
          },
        },
        required: ['ontologies'],
      },
    },
  },
  'POST /admin/ontologies/{version}': {
    response: {
      '200': {
        type: 'object',
        properties: {
          version: { type: 'string' },
          applied_by: { type: 'string' },
          applied: { type: 'integer' },
        },
        required: ['version', 'applied_by', 'applied'],
      },
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
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          path: { type: 'string' },
          deleted: { type: 'boolean' },
          created_by: { type: 'string' },
          created_on: { type: 'string' },
          last_modified_by: { type: 'string' },
          last_modified_on: { type: 'string' },
        },
      },
    },
    body: referenceGenomeBody,
  },
  'GET /apps': {
    response: {
      '200': {
        type: 'object',
        properties: { total: { type: 'integer' }, apps: { type: 'array', items: listedApp } },
        required: ['total', 'apps'],
      },
    },
  },
  'DELETE /apps/{appId}/communities': {
    response: { '200': { type: 'object', properties: { avus: { type: 'array', items: {} } } } },
  },
  'POST /apps/{appId}/communities': { response: { '200': metadataAvus }, body: metadataAvusBody },
  'GET /apps/{appId}/metadata': { response: { '200': metadataAvus } },
  'POST /apps/{appId}/metadata': {
    response: { '200': metadataAvus },
    body: {
      type: 'object',
      properties: {
        avus: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              attr: { type: 'string' },
              value: { type: 'string' },
              unit: { type: 'string' },
              id: { type: 'string' },
            },
          },
        },
      },
    },
  },
  'PUT /apps/{appId}/metadata': {
    response: {
      '200': {
        type: 'object',
        properties: {
          avus: {
            type: 'array',
            items: {
              type: 'object',
              properties: {
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
              },
            },
          },
        },
        required: ['avus'],
      },
    },
    body: metadataAvusBody,
  },
  'GET /apps/{systemId}/{appId}': { response: { '200': savedApp } },
  'GET /apps/{systemId}/{appId}/details': {
    response: {
      '200': {
        type: 'object',
        properties: {
          id: { type: 'string' },
          name: { type: 'string' },
          description: { type: 'string' },
          app_type: { type: 'string' },
          version: { type: 'string' },
          version_id: { type: 'string' },
          system_id: { type: 'string' },
          integrator_name: { type: 'string' },
          integrator_email: { type: 'string' },
          integration_date: { type: 'string' },
          edited_date: { type: 'string' },
          deleted: { type: 'boolean' },
          disabled: { type: 'boolean' },
          beta: { type: 'boolean' },
          is_public: { type: 'boolean' },
          isBlessed: { type: 'boolean' },
          is_favorite: { type: 'boolean' },
          can_favor: { type: 'boolean' },
          can_rate: { type: 'boolean' },
          can_run: { type: 'boolean' },
          step_count: { type: 'integer' },
          overall_job_type: { type: 'string' },
          permission: { type: 'string' },
          pipeline_eligibility: pipelineEligibility,
          rating: {
            type: 'object',
            properties: {
              average: { type: 'integer' },
              total: { type: 'integer' },
              user: { type: 'integer' },
            },
            required: ['average', 'total'],
          },
          limitChecks,
          tools: {
            type: 'array',
            items: appToolDetail,
          },
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
        },
        required: [
          ...versionedAppRequired,
          'tools',
          'references',
          'categories',
          'suggested_categories',
          'versions',
          'job_stats',
        ],
      },
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
            items: {
              type: 'object',
              properties: {
                system_id: { type: 'string' },
                id: { type: 'string' },
                name: { type: 'string' },
                is_public: { type: 'boolean' },
                total: { type: 'integer' },
                categories: { type: 'array', items: {} },
              },
              required: ['system_id', 'id', 'name', 'is_public', 'total', 'categories'],
            },
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
              properties: communityAppProperties,
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
