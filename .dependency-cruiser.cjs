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
      severity: 'warn',
      comment:
        'A country folder (src/register/fiscal/<cc>/) is reached through the module registry, ' +
        'so only src/register/fiscal/ may import a file inside one.',
      from: { path: '^src/', pathNot: '^src/register/fiscal/' },
      to: { path: '^src/register/fiscal/[a-z]{2}/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/' },
    tsPreCompilationDeps: false,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
