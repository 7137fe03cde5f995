// The walls between the layers (docs/architecture.md), checked by `npm run lint` and so by `npm test`.
//   common   vocabulary every part shares; imports nothing of the project but itself
//   config   the settings, one file per area, composed in src/config/index.ts; imports only common
//   store    the database; imports common and config
//   http     the gateway's HTTP layer (auth, limits, the forwarder); imports common, config, store
//   clients  small typed callers of one backend each, over the forwarder; imports common, http
//   routes   the gateway's routes; imports common, config, store, http, clients
//   backends one folder per embedded service; others reach it only through its index.ts
//   embedded the host serving the embedded backends (in-process or standalone); imports their doors
//   app.ts, main.ts, cli/  put it all together
const backendFolder = '^src/backends/[^/]+/';
const door = '^src/backends/[^/]+/index\\.ts$';

// Inside the apps service (docs/architecture.md, "Inside the apps service"): one room a capability,
// each entered through its own index.ts, using only the rooms listed here for it. The service's own
// index.ts (its door) and documented.ts compose the rooms; no room imports them. Only jobs reaches
// the executor. A new room is listed here before it may import anything.
//   shared     nothing of the others (caller, sharing grants, app definitions, parameter values)
//   tools      shared
//   catalog    shared, tools
//   editor     shared, tools, catalog
//   pipelines  shared, catalog, editor
//   jobs       shared, tools, catalog; and src/backends/executor/ through its door
//   sharing    shared
//   external   shared
//   account    shared, external
const apps = '^src/backends/apps/';
const appsRooms = {
  shared: [],
  tools: ['shared'],
  catalog: ['shared', 'tools'],
  editor: ['shared', 'tools', 'catalog'],
  pipelines: ['shared', 'catalog', 'editor'],
  jobs: ['shared', 'tools', 'catalog'],
  sharing: ['shared'],
  external: ['shared'],
  account: ['shared', 'external'],
};
const roomNames = Object.keys(appsRooms).join('|');

/** One rule a room: what of the apps service it may import. */
const appsRoomRules = Object.entries(appsRooms).map(([room, uses]) => ({
  name: `apps-${room}-uses-${uses.length ? uses.join('-') : 'no-other-room'}`,
  comment: uses.length
    ? `apps/${room}/ may use only these other rooms of the apps service: ${uses.join(', ')}.`
    : `apps/${room}/ may use no other room of the apps service.`,
  severity: 'error',
  from: { path: `${apps}${room}/` },
  to: { path: apps, pathNot: `${apps}(${[room, ...uses].join('|')})/` },
}));

module.exports = {
  forbidden: [
    {
      name: 'common-imports-only-common',
      comment:
        'src/common/ is shared vocabulary: it may not depend on any other part of the project.',
      severity: 'error',
      from: { path: '^src/common/' },
      to: { path: '^src/', pathNot: '^src/common/' },
    },
    {
      name: 'config-imports-only-common',
      comment: 'src/config/ reads the environment: it knows nothing of the project but common.',
      severity: 'error',
      from: { path: '^src/config/' },
      to: { path: '^src/', pathNot: '^src/(common|config)/' },
    },
    {
      name: 'config-through-its-index',
      comment:
        'The settings are one GatewayConfig: other parts import src/config/index.ts, never an area file.',
      severity: 'error',
      from: { path: '^src/', pathNot: '^src/config/' },
      to: { path: '^src/config/', pathNot: '^src/config/index\\.ts$' },
    },
    {
      name: 'store-below-the-gateway',
      comment: 'The store serves every part and knows none of them.',
      severity: 'error',
      from: { path: '^src/store/' },
      to: { path: '^src/', pathNot: '^src/(common|config|store)/' },
    },
    {
      name: 'http-below-routes-and-backends',
      comment: 'src/http/ (auth, limits, the forwarder) knows no route, client or backend.',
      severity: 'error',
      from: { path: '^src/http/' },
      to: { path: '^src/', pathNot: '^src/(common|config|store|http)/' },
    },
    {
      name: 'clients-call-over-the-forwarder',
      comment:
        'A client is a typed caller of one backend through the forwarder (src/http/proxy.ts).',
      severity: 'error',
      from: { path: '^src/clients/' },
      to: { path: '^src/', pathNot: '^src/(common|config|http|clients)/' },
    },
    {
      name: 'routes-reach-backends-through-the-forwarder',
      comment:
        'Gateway routes call backends over HTTP (the forwarder, or a client in src/clients/), never in-process.',
      severity: 'error',
      from: { path: '^src/routes/' },
      to: { path: '^src/(backends|embedded)/' },
    },
    {
      name: 'backends-stay-behind-their-doors',
      comment:
        'An embedded backend is a service of its own: it may use common, config, store and other backends’ doors, not the gateway.',
      severity: 'error',
      from: { path: '^src/backends/' },
      to: { path: '^src/(http|routes|clients|embedded|cli)/|^src/(app|main)\\.ts$' },
    },
    {
      name: 'one-door-per-backend',
      comment:
        'Only src/backends/<service>/index.ts may be imported from outside src/backends/<service>/.',
      severity: 'error',
      from: { path: '^src/', pathNot: backendFolder },
      to: { path: backendFolder, pathNot: door },
    },
    {
      name: 'one-door-per-backend-between-backends',
      comment: 'A backend reaches another backend only through that backend’s index.ts.',
      severity: 'error',
      from: { path: '^src/backends/([^/]+)/' },
      to: { path: backendFolder, pathNot: ['^src/backends/$1/', door] },
    },
    {
      name: 'apps-rooms-through-their-doors',
      comment: 'A room of the apps service enters another room only through that room’s index.ts.',
      severity: 'error',
      from: { path: `${apps}([^/]+)/` },
      to: { path: `${apps}[^/]+/`, pathNot: [`${apps}$1/`, `${apps}[^/]+/index\\.ts$`] },
    },
    {
      name: 'apps-door-enters-rooms-through-theirs',
      comment: 'The service’s own files enter a room only through its index.ts.',
      severity: 'error',
      from: { path: `${apps}[^/]+\\.ts$` },
      to: { path: `${apps}[^/]+/`, pathNot: `${apps}[^/]+/index\\.ts$` },
    },
    {
      name: 'apps-rooms-below-the-door',
      comment:
        'The service’s own files (index.ts, documented.ts, unserved-literal-routes.ts) compose the rooms; no room imports them.',
      severity: 'error',
      from: { path: `${apps}[^/]+/` },
      to: { path: `${apps}[^/]+\\.ts$` },
    },
    ...appsRoomRules,
    {
      name: 'apps-rooms-are-listed',
      comment:
        'A room of the apps service imports nothing until its directions are listed in appsRooms.',
      severity: 'error',
      from: { path: `${apps}[^/]+/`, pathNot: `${apps}(${roomNames})/` },
      to: { path: '^src/' },
    },
    {
      name: 'apps-executor-only-from-jobs',
      comment:
        'Only the job lifecycle (apps/jobs/) runs steps on the executor: a new kind of engine changes no other room.',
      severity: 'error',
      from: { path: apps, pathNot: `${apps}jobs/` },
      to: { path: '^src/backends/executor/' },
    },
    {
      name: 'no-circular-files',
      severity: 'error',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'no-circular-folders',
      comment: 'Folders form layers: no folder depends, through others, on itself.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/.+' },
      to: { path: '^src/.+', circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
