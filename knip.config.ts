/**
 * Knip checks package.json against the imports; test/dependencies.test.ts runs it twice:
 * - `knip`: every file (product, tests, bench, scripts). Fails on a listed package nobody uses and on
 *   an import of a package that is not listed.
 * - `knip --production --strict`: only the product (the patterns ending in "!"), only its runtime
 *   imports (not `import type`, which the compiled service does not load) and only `dependencies`.
 *   Fails on a dependency that only tests, bench or scripts use (it belongs in devDependencies) and on
 *   product code importing a devDependency (it would break an install without dev dependencies).
 * The test passes `--include dependencies,unlisted,binaries`: unused files and exports are not checked.
 */
import type { KnipConfig } from 'knip';

const strict = process.argv.includes('--strict');

/**
 * Loaded by name when first needed: src/shared/lazy-modules.ts calls `onFirstUse<typeof Pug>('pug')`,
 * which require()s the name, so the strict run (that does not count `import type`) sees no use of them.
 * Only that run ignores them (the default run sees the type imports, and would call the entries
 * superfluous); test/dependencies.test.ts checks that lazy-modules.ts still loads each one by name.
 */
export const loadedByName = ['@xmldom/xmldom', 'ejs', 'node-forge', 'pug', 'qrcode', 'undici', 'xml-crypto'];

const config: KnipConfig = {
  // Every source file is an entry, not only src/cli.ts: the journal's writer thread and the layout
  // sandbox are started as `new Worker(new URL(...))`, which Knip does not follow.
  entry: [
    'src/**/*.ts!',
    // tests beside the sources, the store contract tests and their helper are dev code
    'src/**/*.test.ts',
    'src/**/*.testing.ts',
    'src/**/*.contract.ts',
    'src/shared/testing.ts',
    'test/**/*.ts',
    'bench/**/*.ts',
    'scripts/**/*.mjs',
  ],
  project: ['src/**/*.ts!', 'test/**/*.ts', 'bench/**/*.ts', 'scripts/**/*.mjs'],
  ignoreDependencies: strict ? loadedByName : [],
  // Tests run Debian's tools: openssl, xmllint, poppler's pdf* and java (Saxon-HE for the e-invoice rules)
  // are installed by .ci/run, mount and umount (the disk-full test) and coreutils' base32 come with the base system. They are no
  // npm packages to list.
  ignoreBinaries: ['openssl', 'xmllint', 'pdftotext', 'pdftoppm', 'pdffonts', 'java', 'mount', 'umount', 'base32'],
};

export default config;
