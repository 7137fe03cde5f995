import type { ColumnType } from 'kysely';

/** A per-user JSON document kept as the text the client sent (user-info preferences, sessions, searches). */
type UserDocument<Column extends string> = { id: string; user_id: string } & Record<Column, string>;

/** Typed view of the tables, shared by SQLite and PostgreSQL queries. */
export interface Database {
  users: {
    id: string;
    /** Qualified: `alice@<uid-domain>`. */
    username: string;
    email: string | null;
    first_name: string | null;
    last_name: string | null;
    /** Milliseconds since the epoch. */
    created_at: ColumnType<number, number | undefined, number>;
    last_seen_at: ColumnType<number, number | undefined, number>;
  };
  user_preferences: UserDocument<'preferences'>;
  user_sessions: UserDocument<'session'>;
  user_saved_searches: UserDocument<'saved_searches'>;
  bags: { id: string; user_id: string; contents: string };
  default_bags: { user_id: string; bag_id: string };
  workspace: {
    id: string;
    user_id: string;
    root_category_id: string;
    /** SQLite hands booleans back as 0/1. */
    is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
  };
  logins: {
    id: string;
    user_id: string;
    ip_address: string | null;
    /** Milliseconds since the epoch. */
    login_time: number;
    session_id: string | null;
  };
  /**
   * Names are also indexed for the data search by triggers (migration 026): `data_search_names`
   * (FTS5 on SQLite, keyed through `data_search_keys`; a `tsvector` with a GIN index on
   * PostgreSQL), read with raw SQL by the search service only.
   */
  /** Children of each type per folder, kept by migration 033's (and 036's) triggers on `data_objects`. */
  data_folder_counts: {
    parent_path: string;
    type: 'file' | 'dir';
    count: ColumnType<number | string, number, number>;
    /** Changes whenever the order of these children may have (migration 036). */
    version: ColumnType<number | string, never, never>;
  };
  data_objects: {
    id: string;
    path: string;
    parent_path: string;
    name: string;
    type: 'file' | 'dir';
    /** Short username. */
    owner: string;
    /** Milliseconds since the epoch. */
    created_at: number;
    modified_at: number;
    size: ColumnType<number, number | undefined, number>;
    md5: string | null;
    content_type: string | null;
    info_type: ColumnType<string, string | undefined, string>;
    trash_origin: string | null;
    trashed_at: number | null;
    /** The blob holding a file's bytes when it is not `id` (new content, migration 042); null: `id`. */
    blob_id: ColumnType<string | null, string | null | undefined, string | null>;
  };
  data_permissions: {
    object_id: string;
    /** Short username, or `public` for everyone. */
    username: string;
    permission: 'read' | 'write' | 'own';
  };
  data_tickets: {
    /** Upper-case UUID. */
    id: string;
    object_id: string;
    owner: string;
    mode: 'read' | 'write';
    public: ColumnType<boolean | number, boolean | undefined, boolean>;
    for_job: ColumnType<boolean | number, boolean | undefined, boolean>;
    uses_limit: number | null;
    uses_count: ColumnType<number, number | undefined, number>;
    file_write_limit: number | null;
    created_at: number;
  };
  global_alerts: {
    /** Milliseconds since the epoch; null means "from the start". */
    start_date: number | null;
    end_date: number;
    alert: string;
  };
}

export type UserDocumentTableName = 'user_preferences' | 'user_sessions' | 'user_saved_searches';

/** `comments`, `avus`, `favorites`, `attached_tags`: what a metadata row is about (backends.md §3). */
export type MetadataTargetType =
  'analysis' | 'app' | 'avu' | 'file' | 'folder' | 'user' | 'quick_launch' | 'instant_launch';

/**
 * The metadata service's tables (migration 005, backends.md §3.1–3.4), merged into `Database`.
 * Usernames are short; times are milliseconds since the epoch; SQLite reads booleans back as 0/1.
 */
export interface Database {
  comments: {
    id: string;
    value: string;
    post_time: number;
    retracted: ColumnType<boolean | number, boolean | undefined, boolean>;
    retracted_by: string | null;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    target_id: string;
    target_type: MetadataTargetType;
    owner_id: string;
  };
  favorites: {
    owner_id: string;
    target_id: string;
    target_type: MetadataTargetType;
    created_on: number;
    /**
     * Migration 035: the marked data object's type, name, path, dates and size, kept by triggers
     * (NULL while no object has the id). Never written by code.
     */
    obj_type: ColumnType<'file' | 'dir' | null, never, never>;
    obj_name: ColumnType<string | null, never, never>;
    obj_path: ColumnType<string | null, never, never>;
    obj_created: ColumnType<number | string | null, never, never>;
    obj_modified: ColumnType<number | string | null, never, never>;
    obj_size: ColumnType<number | string | null, never, never>;
  };
  /** Migration 035: favourites whose object exists, per owner, kind and object type (triggers). */
  favorite_counts: {
    owner_id: string;
    target_type: MetadataTargetType;
    obj_type: 'file' | 'dir';
    count: ColumnType<number | string, never, never>;
  };
  avus: {
    id: string;
    attribute: string;
    value: string;
    unit: ColumnType<string, string | undefined, string>;
    /** For a nested AVU: the id of the AVU it belongs to, with `target_type` `avu`. */
    target_id: string;
    target_type: MetadataTargetType;
    created_by: string;
    modified_by: string;
    created_on: number;
    modified_on: number;
  };
  tags: {
    id: string;
    value: string;
    description: string | null;
    public: ColumnType<boolean | number, boolean | undefined, boolean>;
    owner_id: string;
    created_on: number;
    modified_on: number;
  };
  attached_tags: {
    target_id: string;
    target_type: MetadataTargetType;
    tag_id: string;
    attacher_id: string;
    attached_on: number;
    detacher_id: string | null;
    detached_on: number | null;
  };
}

/**
 * The metadata service's templates and permanent-ID requests (migration 006, backends.md §3.5,
 * §3.7), merged into `Database`. Times are milliseconds since the epoch.
 */
export interface Database {
  metadata_value_types: { id: string; name: string };
  metadata_templates: {
    id: string;
    name: string;
    description: string | null;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    created_by: string;
    modified_by: string;
    created_on: number;
    modified_on: number;
  };
  metadata_attributes: {
    id: string;
    name: string;
    description: string;
    required: ColumnType<boolean | number, boolean | undefined, boolean>;
    value_type_id: string;
    /** JSON text. */
    settings: string | null;
    created_by: string;
    modified_by: string;
    created_on: number;
    modified_on: number;
  };
  metadata_template_attrs: { template_id: string; attribute_id: string; display_order: number };
  metadata_attr_enum_values: {
    id: string;
    attribute_id: string;
    value: string;
    is_default: ColumnType<boolean | number, boolean | undefined, boolean>;
    display_order: number;
  };
  metadata_attr_synonyms: { attribute_id: string; synonym_id: string };
  metadata_attr_attrs: { parent_id: string; child_id: string; display_order: number };
  permanent_id_request_types: { id: string; type: string; description: string | null };
  permanent_id_request_status_codes: { id: string; name: string; description: string | null };
  permanent_id_requests: {
    id: string;
    /** Short username. */
    requested_by: string;
    /** → permanent_id_request_types.id */
    type: string;
    target_id: string;
    target_type: 'file' | 'folder';
    original_path: string | null;
    permanent_id: string | null;
  };
  permanent_id_request_statuses: {
    id: string;
    permanent_id_request: string;
    permanent_id_request_status_code: string;
    /** 1, 2, … per request: the latest status is the highest. */
    position: number;
    date_assigned: number;
    updated_by: string;
    comments: string | null;
  };
}

/**
 * The notification agent's tables (migration 008, backends.md §4.4–4.5), merged into `Database`.
 * Usernames are short; times are milliseconds since the epoch.
 */
export interface Database {
  notifications: {
    id: string;
    username: string;
    /** Lower case, `_` for spaces. */
    type: string;
    subject: string;
    seen: ColumnType<boolean | number, boolean | undefined, boolean>;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    time_created: number;
    /** The notification request as received, JSON text. */
    incoming_json: string;
  };
  /**
   * Migration 040: job status notifications not yet accepted by the notification agent, each sent
   * under its id as the Idempotency-Key (job-notices.ts).
   */
  notification_outbox: {
    id: string;
    analysis_id: string;
    /** The UserNotification, JSON text. */
    notification_json: string;
    created_at: number;
    attempt_after: number;
    holder: string | null;
    attempts: ColumnType<number, number | undefined, number>;
  };
  /**
   * Migration 043: live notifications not yet confirmed by the AMQP broker (notification-agent's
   * live-outbox.ts), published in `created_at` order and removed once confirmed.
   */
  live_notification_outbox: {
    /** The AMQP message id: the notification's id, or a fresh one per user of a system message. */
    id: string;
    routing_key: string;
    /** The message body, JSON text. */
    body: string;
    created_at: number;
    attempt_after: number;
    holder: string | null;
  };
  /** Live notifications per user, type and seen, kept by migration 033's triggers. */
  notification_counts: {
    username: string;
    type: string;
    seen: ColumnType<boolean | number, boolean, boolean>;
    count: ColumnType<number | string, number, number>;
  };
  system_notification_types: { name: string };
  system_notifications: {
    id: string;
    type: string;
    message: string;
    date_created: number;
    activation_date: number;
    deactivation_date: number;
    dismissible: ColumnType<boolean | number, boolean | undefined, boolean>;
    logins_disabled: ColumnType<boolean | number, boolean | undefined, boolean>;
  };
  system_notification_acknowledgments: {
    username: string;
    system_notification_id: string;
    /** 1 received, 2 acknowledged (seen), 3 dismissed; no row = unreceived. */
    state: number;
    date_acknowledged: number | null;
  };
}

/** The `tools` table: its columns of migration 009, merged with those later migrations add. */
export interface ToolsTable {
  id: string;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  location: ColumnType<string, string | undefined, string>;
  type: string;
  version: ColumnType<string, string | undefined, string>;
  attribution: ColumnType<string, string | undefined, string>;
  /** The embedded executor that runs it; null when none does. */
  executor: string | null;
  integrator: string;
  created_on: number;
  /** Migration 020: its integration data; null until first needed. */
  integration_data_id: ColumnType<string | null, string | null | undefined, string | null>;
}

/**
 * The apps service's catalog (migration 009, backends.md §5.1, §5.6), merged into `Database`.
 * Usernames are short; times are milliseconds since the epoch.
 */
export interface Database {
  tools: ToolsTable;
  apps: {
    id: string;
    system_id: ColumnType<string, string | undefined, string>;
    name: string;
    description: ColumnType<string, string | undefined, string>;
    integrator: string;
    integrator_name: ColumnType<string, string | undefined, string>;
    integrator_email: ColumnType<string, string | undefined, string>;
    wiki_url: string | null;
    is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
    is_blessed: ColumnType<boolean | number, boolean | undefined, boolean>;
    beta: ColumnType<boolean | number, boolean | undefined, boolean>;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    disabled: ColumnType<boolean | number, boolean | undefined, boolean>;
    integration_date: number;
    edited_date: number;
    /** Migration 020: its integration data; null until first needed. */
    integration_data_id: ColumnType<string | null, string | null | undefined, string | null>;
  };
  app_versions: {
    id: string;
    app_id: string;
    version: string;
    version_order: number;
    /** JSON: `{steps: [{tool_id, name}], groups: [...], requirements?}`. */
    definition: string;
    documentation: string | null;
    /** JSON list of strings. */
    reference_urls: ColumnType<string, string | undefined, string>;
    created_by: string;
    created_on: number;
  };
  app_version_tools: { app_version_id: string; step_number: number; tool_id: string | null };
  app_categories: {
    id: string;
    name: string;
    description: ColumnType<string, string | undefined, string>;
    parent_id: string | null;
    owner: string | null;
    is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
    created_on: number;
  };
  app_category_apps: { category_id: string; app_id: string };
  app_favorites: { username: string; app_id: string; created_on: number };
  app_ratings: {
    username: string;
    app_id: string;
    rating: number;
    comment_id: string | null;
    rated_on: number;
  };
}

/**
 * The apps service's OAuth tables (migration 010, backends.md §5.4), merged into `Database`.
 * Usernames are short; times milliseconds since the epoch.
 */
export interface Database {
  oauth_access_tokens: {
    /** The API name (`extapi`). */
    webapp: string;
    username: string;
    /** Sealed (AES-256-GCM, base64 of IV, tag and ciphertext): never the token itself. */
    token: string;
    /** Null when the provider gave no lifetime. */
    expires_at: number | null;
    /** Sealed like `token`; null when the provider gave none. */
    refresh_token: string | null;
  };
  oauth_authorization_requests: {
    /** The `state` sent to the provider. */
    id: string;
    username: string;
    /** What the client gets back once the user has authorized. */
    state_info: string;
    created_on: number;
  };
}

/**
 * Ontologies (migration 011, backends.md §3.6, §5.5), merged into `Database`. Usernames are
 * short; times are milliseconds since the epoch.
 */
export interface Database {
  ontologies: {
    version: string;
    iri: string;
    /** The uploaded document as received. */
    xml: string;
    created_by: string;
    created_on: number;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
  };
  /** Every class of a version, parsed at upload. */
  ontology_classes: {
    ontology_version: string;
    iri: string;
    label: string | null;
    description: string | null;
  };
  /** Every named subclass edge of a version, parsed at upload. */
  ontology_subclasses: { ontology_version: string; class_iri: string; subclass_iri: string };
  /** The hierarchies an administrator saved, by root. */
  ontology_saved_roots: { ontology_version: string; root_iri: string; saved_on: number };
  /** The classes saved under those roots: what hierarchies show. */
  ontology_saved_classes: { ontology_version: string; class_iri: string };
  /** The apps service's active-version log: the highest position is the active version. */
  app_hierarchy_version: { position: number; version: string; applied_by: string; applied: number };
}

/** The embedded genome service (migration 012). */
export interface Database {
  genomes: {
    id: string;
    name: string;
    organism: string;
    version: string;
    owner: string;
    restricted: ColumnType<boolean | number, boolean | undefined, boolean>;
    /** JSON list of data-store paths. */
    source_paths: string;
    /** `loading` or `loaded`. */
    status: string;
    sequence_count: ColumnType<number, number | undefined, number>;
    total_length: ColumnType<number, number | undefined, number>;
    created_at: number;
  };
  genome_jobs: {
    id: string;
    /** `load` or `export_fasta`. */
    type: string;
    username: string;
    genome_id: string;
    /** JSON: the parameters as requested. */
    parameters: string;
    /** `Running`, `Completed` or `Failed`. */
    status: string;
    error: string | null;
    /** JSON list of data-store paths. */
    paths: string;
    created_at: number;
    finished_at: number | null;
  };
}

/** The embedded analyses service's quick launches (migration 014, backends.md §6). Usernames are short. */
export interface Database {
  quick_launches: {
    id: string;
    name: string;
    description: ColumnType<string, string | undefined, string>;
    creator: string;
    app_id: string;
    app_version_id: string;
    is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
    /** JSON text: the analysis submission as given. */
    submission: string;
    created_on: number;
  };
  quick_launch_favorites: {
    id: string;
    username: string;
    quick_launch_id: string;
    created_on: number;
  };
  quick_launch_user_defaults: {
    id: string;
    username: string;
    app_id: string;
    quick_launch_id: string;
  };
  quick_launch_global_defaults: { id: string; app_id: string; quick_launch_id: string };
}

/** Instant launches of the embedded analyses service (migration 027, backends.md §6). Usernames are short. */
export interface Database {
  instant_launches: {
    id: string;
    quick_launch_id: string;
    added_by: string;
    added_on: number;
  };
  default_instant_launches: {
    id: string;
    version: number;
    /** JSON text: `{<pattern>: {kind, default, compatible}}`. */
    instant_launches: string;
    added_by: string;
    added_on: number;
  };
}

/** Analyses of the apps service (migration 015, backends.md §5.3), merged into `Database`. */
export interface Database {
  analyses: {
    id: string;
    name: string;
    description: ColumnType<string, string | undefined, string>;
    username: string;
    app_id: string;
    app_version_id: string;
    system_id: string;
    app_name: string;
    app_description: ColumnType<string, string | undefined, string>;
    result_folder: string;
    /** `Submitted`, `Running`, `Completed`, `Failed`, `Canceled`. */
    status: string;
    start_date: number;
    end_date: number | null;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    notify: ColumnType<boolean | number, boolean | undefined, boolean>;
    /** The AnalysisSubmission as sent, JSON text. */
    submission: string;
    parent_id: string | null;
    /** Migration 038: the runner following the job while it is active; null before it is submitted. */
    lease_holder: ColumnType<string | null, string | null | undefined, string | null>;
    /** Migration 038: when another gateway may take the job over (ms since the epoch). */
    lease_expires_at: ColumnType<number | null, number | null | undefined, number | null>;
  };
  analysis_status_updates: {
    id: string;
    analysis_id: string;
    status: string;
    message: ColumnType<string, string | undefined, string>;
    sent_on: number;
    /** Migration 025: the step (1-based) the update is about; null for the analysis's own. */
    step_number: ColumnType<number | null, number | null | undefined, number | null>;
  };
  /** Migration 025: each step of an analysis with its own status and times. */
  analysis_steps: {
    analysis_id: string;
    step_number: number;
    name: string;
    external_id: string;
    step_type: string;
    status: string;
    start_date: number | null;
    end_date: number | null;
    /** Migration 029: an interactive step's loopback port, once it has one. */
    port: ColumnType<number | null, number | null | undefined, number | null>;
    /** Migration 029: an interactive step's deadline (ms since the epoch). */
    time_limit: ColumnType<number | null, number | null | undefined, number | null>;
    /** Migration 029: an interactive session's length: what one extension adds. */
    session_seconds: ColumnType<number | null, number | null | undefined, number | null>;
    /** Migration 029: `exit`, `save-and-exit`, `save-output-files` or `download-input-files`, asked for and not yet done. */
    exit_request: ColumnType<string | null, string | null | undefined, string | null>;
    /** Migration 038: what names the step in its engine (a container, a Slurm job), once it holds it. */
    engine_handle: ColumnType<string | null, string | null | undefined, string | null>;
    /** Migration 039: the CPU seconds the step's engine counted, once it has ended. */
    cpu_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  };
}

/** Per-user concurrent-job limits (migration 016), merged into `Database`. */
export interface Database {
  concurrent_job_limits: {
    username: string;
    concurrent_jobs: number;
    set_by: string;
    set_on: number;
  };
}

/** The groups service's teams, communities and collaborator lists (migration 017), merged into `Database`. */
export interface Database {
  groups: {
    id: string;
    /** `team`, `community` or `collaborator-list`. */
    kind: string;
    /** Teams and collaborator lists `<owner>:<name>`, communities `<name>`. */
    name: string;
    description: ColumnType<string, string | undefined, string>;
    creator: string;
    created_on: number;
    modified_on: number;
  };
  group_members: { group_id: string; subject_id: string; added_on: number };
  group_privileges: { group_id: string; subject_id: string; privilege: string; granted_on: number };
  group_join_requests: {
    group_id: string;
    requester: string;
    message: ColumnType<string, string | undefined, string>;
    requested_on: number;
  };
}

/** Grants on apps, analyses and tools (migration 019), merged into `Database`. */
export interface Database {
  resource_permissions: {
    /** `app`, `analysis` or `tool`. */
    resource_type: string;
    resource_id: string;
    /** `user` (a short username) or `group` (a group's id). */
    subject_type: string;
    subject_id: string;
    /** `read`, `write` or `own`. */
    permission: string;
    granted_on: number;
  };
}

/** Integration data of apps and tools (migration 020), merged into `Database`. */
export interface Database {
  integration_data: {
    id: string;
    /** The integrator's short username when they are a user of the platform. */
    username: string | null;
    integrator_name: string;
    integrator_email: string;
    created_on: number;
  };
}

/** Reference genomes (migration 023), merged into `Database`. Users qualified; times in ms. */
export interface Database {
  reference_genomes: {
    id: string;
    name: string;
    /** A data-store path: what a job gets for a reference-genome parameter. */
    path: string;
    deleted: ColumnType<boolean | number, boolean | undefined, boolean>;
    created_by: string;
    created_on: number;
    last_modified_by: string;
    last_modified_on: number;
  };
}

/** Webhooks (migration 024), merged into `Database`. Usernames short; times in ms. */
export interface Database {
  webhook_types: { id: string; type: string; template: string };
  /** Topics are notification types as the agent lists them (`tool request`). */
  webhook_topics: { id: string; topic: string };
  webhooks: {
    id: string;
    username: string;
    url: string;
    type_id: string;
    /** HMAC-SHA256 key of the X-Platform-Signature header (hex). */
    secret: string;
    created_on: number;
  };
  webhook_subscriptions: { webhook_id: string; topic_id: string };
  /** Webhook deliveries waiting (migration 044): one per notification and subscribed webhook. */
  webhook_outbox: {
    /** The X-Platform-Delivery header, the same on every attempt. */
    id: string;
    webhook_id: string;
    notification_id: string;
    /** The X-Platform-Topic header (the webhook's topic, as listed). */
    topic: string;
    /** The body as signed and sent, JSON text. */
    body: string;
    /** Failed attempts so far. */
    attempts: ColumnType<number, number | undefined, number>;
    attempt_after: number;
    holder: string | null;
    created_at: number;
  };
}

/** App publication requests and administrators' app extras (migration 021), merged into `Database`. */
export interface Database {
  app_publication_requests: {
    id: string;
    app_id: string;
    requestor: string;
    requested_on: number;
    /** `{documentation?, references?}` as the requestor sent them, JSON text. */
    request: ColumnType<string, string | undefined, string>;
    completed: ColumnType<boolean | number, boolean | undefined, boolean>;
    completed_by: string | null;
    completed_on: number | null;
  };
  app_extras: { app_id: string; extra: string };
}

/**
 * The columns migration 022 adds to `tools` (tools as users and administrators keep them), merged
 * into `ToolsTable`. Times are milliseconds since the epoch.
 */
export interface ToolsTable {
  is_public: ColumnType<boolean | number, boolean | undefined, boolean>;
  /** JSON: the container settings as clients send them; null when none. */
  container: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON: `{implementor, implementor_email, test}`; null when none. */
  implementation: ColumnType<string | null, string | null | undefined, string | null>;
  restricted: ColumnType<boolean | number, boolean | undefined, boolean>;
  interactive: ColumnType<boolean | number, boolean | undefined, boolean>;
  time_limit_seconds: ColumnType<number | null, number | null | undefined, number | null>;
  modified_on: ColumnType<number | null, number | null | undefined, number | null>;
  /** Migration 025: JSON of the program and image an administrator approved for running; null when none. */
  approved_run: ColumnType<string | null, string | null | undefined, string | null>;
  approved_by: ColumnType<string | null, string | null | undefined, string | null>;
}

/** Tool requests with their status history and status codes (migration 022), merged into `Database`. */
export interface Database {
  tool_request_status_codes: {
    id: string;
    name: string;
    description: ColumnType<string, string | undefined, string>;
    ordinal: number;
  };
  tool_requests: {
    id: string;
    requested_by: string;
    name: string;
    version: string;
    description: string;
    /** JSON: the request's other fields as the client sent them. */
    details: string;
    tool_id: ColumnType<string | null, string | null | undefined, string | null>;
    date_submitted: number;
  };
  tool_request_statuses: {
    id: string;
    tool_request_id: string;
    status_code_id: string;
    /** 1, 2, …: the highest is the request's current status. */
    position: number;
    status_date: number;
    updated_by: string;
    comments: ColumnType<string, string | undefined, string>;
  };
}

/** The dashboard's feeds, kept by the user-info service (migration 028). */
export interface Database {
  dashboard_feed_items: {
    id: string;
    /** `news`, `events` or `videos`. */
    feed: string;
    title: string;
    link: ColumnType<string, string | undefined, string>;
    description: ColumnType<string, string | undefined, string>;
    author: ColumnType<string, string | undefined, string>;
    publication_date: number;
    date_added: number;
  };
}

/** The requests service's types, requests and status history (migration 030), merged into `Database`. Usernames short; times in ms. */
export interface Database {
  request_types: {
    id: string;
    name: string;
    maximum_requests_per_user: number | null;
    maximum_concurrent_requests_per_user: number | null;
  };
  requests: {
    id: string;
    request_type_id: string;
    requesting_user: string;
    /** JSON object. */
    details: string;
    created_date: number;
  };
  request_updates: {
    id: string;
    request_id: string;
    status: string;
    updating_user: string;
    message: ColumnType<string, string | undefined, string>;
    created_date: number;
  };
}

/** Subscriptions and usage, the QMS (migration 032), merged into `Database`. Usernames short; times in ms. */
export interface Database {
  qms_resource_types: { id: string; name: string; unit: string; consumable: boolean };
  qms_plans: { id: string; name: string; description: string };
  qms_plan_quota_defaults: {
    id: string;
    plan_id: string;
    resource_type_id: string;
    quota_value: number;
  };
  qms_subscriptions: {
    id: string;
    username: string;
    plan_id: string;
    effective_start_date: number;
    effective_end_date: number;
    paid: boolean;
    created_at: number;
  };
  qms_quotas: QmsAmountRow;
  qms_usages: QmsAmountRow;
  qms_addons: {
    id: string;
    name: string;
    description: string;
    resource_type_id: string;
    default_amount: number;
    default_paid: boolean;
  };
  qms_addon_rates: { id: string; addon_id: string; rate: number; effective_date: number };
  qms_subscription_addons: {
    id: string;
    subscription_id: string;
    addon_id: string;
    amount: number;
    paid: boolean;
    created_at: number;
  };
}

/** A subscription's quota or usage of one resource type. */
export interface QmsAmountRow {
  id: string;
  subscription_id: string;
  resource_type_id: string;
  value: number;
  created_at: number;
  last_modified_at: number;
}

/** The embedded identity provider's users, sessions, codes and refresh tokens (migration 031). Times in ms. */
export interface Database {
  idp_users: {
    username: string;
    email: string;
    first_name: ColumnType<string, string | undefined, string>;
    last_name: ColumnType<string, string | undefined, string>;
    password_hash: string;
    admin: ColumnType<boolean | number, boolean | undefined, boolean>;
    created_at: number;
    updated_at: number;
  };
  idp_sessions: { id: string; username: string; created_at: number; expires_at: number };
  idp_codes: {
    /** SHA-256 (base64url) of the code: the code itself is never stored. */
    code_hash: string;
    session_id: string;
    client_id: string;
    redirect_uri: string;
    scope: string;
    nonce: string | null;
    code_challenge: string | null;
    expires_at: number;
  };
  idp_refresh_tokens: {
    /** SHA-256 (base64url) of the token. */
    token_hash: string;
    session_id: string;
    client_id: string;
    scope: string;
    expires_at: number;
  };
}

/** Failed sign-ins of the embedded identity provider, per username and per address (migration 041). Times in ms. */
export interface Database {
  idp_sign_in_failures: {
    /** `user:<username>` or `address:<ip>` (an IPv6 address by its /64's first address). */
    key: string;
    /** Failed sign-ins, each within a window of the one before (none since a lock). */
    failures: number;
    /** The last failed sign-in, or the last lock's start. */
    last_failure_at: number;
    /** 0, or the end of the lock in force (or last in force). */
    locked_until: number;
    /** The length of the last lock: the next one is twice as long, up to the policy's longest. */
    lock_ms: number;
    /** When the row no longer means anything (a whole window after its last failure and lock). */
    expires_at: number;
  };
}
