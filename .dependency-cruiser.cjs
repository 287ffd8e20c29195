// The architecture check (test/architecture.test.ts, npm run check:architecture): dependencies in src/
// point one way, entry -> routes/interfaces -> pipeline -> country modules -> record writing -> journal
// -> codec/esr/shared. Type-only imports vanish at runtime, so they may go either way.
/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-runtime-cycle',
      severity: 'error',
      comment: 'A runtime import cycle makes the load order decide which binding is still undefined.',
      from: { path: '^src/' },
      to: { circular: true, dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'country-folder-from-outside',
      severity: 'error',
      comment:
        'A country folder (src/register/fiscal/<cc>/) is reached through the module registry, ' +
        'so only src/register/fiscal/ may import a file inside one.',
      from: { path: '^src/', pathNot: '^src/register/fiscal/' },
      to: { path: '^src/register/fiscal/[a-z]{2}/' },
    },
    {
      name: 'country-folder-from-shared-fiscal-code',
      severity: 'error',
      comment:
        'Inside src/register/fiscal/, only the registry names the countries; shared fiscal code asks the ' +
        'module (FiscalModule) for what a country declares.',
      from: { path: '^src/register/fiscal/', pathNot: ['^src/register/fiscal/registry\\.ts$', '^src/register/fiscal/[a-z]{2}/'] },
      to: { path: '^src/register/fiscal/[a-z]{2}/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'country-from-another-country',
      severity: 'error',
      comment: 'What two countries share is a folder of its own (such as the SAF-T Cash Register writer), not one country\'s files.',
      from: { path: '^src/register/fiscal/([a-z]{2})/' },
      to: { path: '^src/register/fiscal/[a-z]{2}/', pathNot: '^src/register/fiscal/$1/' },
    },
    {
      name: 'portal-beside-the-rendering-entry',
      severity: 'error',
      comment:
        'The portal uses the register service only through its documented rendering entry ' +
        '(src/register/render/index.ts) and the codec, never its context, routes or journal.',
      from: { path: '^src/portal/' },
      to: { path: '^src/register/', pathNot: '^src/register/(render/index\\.ts|codec/)', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'portal-reaches-no-register-service',
      severity: 'error',
      comment:
        'What the rendering entry loads stays rendering: through it the portal never reaches the register ' +
        "service's context, pipeline, routes, server, journal stores or maintenance.",
      from: { path: '^src/portal/', pathNot: '\\.test\\.ts$' },
      to: { path: '^src/register/(context|pipeline|server|app|registers)\\.ts$|^src/register/(routes|journal/sqlite|journal/postgres|maintenance|recorder|interfaces)/', reachable: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
