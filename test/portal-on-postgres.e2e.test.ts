/**
 * The portal's end-to-end suites once more on the real PostgreSQL server (a fresh schema per suite, dropped
 * afterwards), so that every run, CI's too, proves both stores: the suites read EFR_TEST_PG when their
 * harness (portal-helpers.ts) loads, which is why they are imported only after it is set.
 */
process.env.EFR_TEST_PG ||= 'postgres://postgres@127.0.0.1:5432/test';

await import('./portal-entities.e2e.test.js');
await import('./portal-permissions.e2e.test.js');
await import('./portal-foreign-ids.e2e.test.js');
await import('./portal-deactivation.e2e.test.js');
await import('./portal-search.e2e.test.js');
await import('./portal-lifecycle-and-input.e2e.test.js');
