export { embeddedDatabaseOwner, openDatabase, type Database, type DatabaseOptions } from './open-database.ts';
export { migrateModule, migrateModuleOnce, type ModuleMigrations } from './migrate.ts';
export { createTestDatabase, type TestDatabase } from './test-database.ts';
export { preparedStatement, type StatementConfig } from './prepared-statement.ts';
export { createBatcher, refusedByServer, settle, type Settled } from './batcher.ts';
