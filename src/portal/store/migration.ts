/** A schema change: applied once, in version order, and recorded in the table schema_migrations. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** Refuses a database that a newer program has migrated past what this one knows. */
export function checkKnown(applied: readonly number[], migrations: readonly Migration[]): void {
  const newest = migrations.reduce((n, m) => Math.max(n, m.version), 0);
  const beyond = applied.filter((v) => v > newest);
  if (beyond.length > 0) {
    throw new Error(`the portal database has schema version ${Math.max(...beyond)}, newer than this program knows (${newest}); update the program`);
  }
}
