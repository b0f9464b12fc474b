/**
 * The walls between Kontor's rooms (docs/architecture.md, "Boundaries"), checked by
 * `npm run boundaries` in `npm run check` and CI. Tests may reach inside what they test.
 */
const notTests = '(\\.test(-support)?\\.ts|/test/.*)$';

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes two files one: neither can change or be tested alone.',
      from: { pathNot: notTests },
      to: { circular: true },
    },
    {
      name: 'shared-and-db-stay-below',
      severity: 'error',
      comment:
        'src/shared and src/db are the floor: they know neither HTTP nor any module, nor the app that assembles them.',
      from: { path: '^src/(shared|db)/', pathNot: notTests },
      to: { path: '^src/(http/|modules/|app\\.ts$|context\\.ts$|server\\.ts$|cli\\.ts$)' },
    },
    {
      name: 'http-knows-no-module',
      severity: 'error',
      comment:
        'The HTTP layer maps requests and errors; what a module offers reaches it through the context.',
      from: { path: '^src/http/', pathNot: notTests },
      to: { path: '^src/(modules/|app\\.ts$)' },
    },
    {
      name: 'module-only-through-its-index',
      severity: 'error',
      comment:
        "A module's index.ts is its only face: another module imports that, never the files behind it.",
      from: { path: '^src/modules/([^/]+)/', pathNot: notTests },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '^src/modules/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'the-app-assembles-module-faces',
      severity: 'error',
      comment:
        "The app, the server and the CLI wire modules through their index.ts like any other caller. (src/context.ts declares the services' types and imports the files that define them.)",
      from: { path: '^src/(app|server|cli)\\.ts$' },
      to: { path: '^src/modules/[^/]+/', pathNot: '^src/modules/[^/]+/index\\.ts$' },
    },
    {
      name: 'modules-do-not-import-the-app',
      severity: 'error',
      comment:
        'The app assembles the modules; a module that imports it back closes a cycle (routes take App from http/types).',
      from: { path: '^src/modules/', pathNot: notTests },
      to: { path: '^src/(app|server|cli)\\.ts$' },
    },
    {
      name: 'optional-packages-load-when-used',
      severity: 'error',
      comment:
        'The S3 SDK, Stripe and pg-boss are loaded only when used (S3 storage, a Stripe delivery, jobs on PostgreSQL), so a server without them keeps them out of the heap every full collection marks (docs/benchmarks.md): reach them, and the files that wrap them, through import() or a type-only import.',
      from: {
        path: '^src/',
        pathNot: [
          notTests,
          '^src/modules/files/storage\\.s3\\.ts$',
          '^src/shared/pgboss-jobs\\.ts$',
        ],
      },
      to: {
        path: [
          'node_modules/(@aws-sdk|stripe|pg-boss)/',
          '^src/modules/files/storage\\.s3\\.ts$',
          '^src/shared/pgboss-jobs\\.ts$',
        ],
        dependencyTypesNot: ['dynamic-import', 'type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(dist|clients|bench|scripts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js', '.json'] },
  },
};
