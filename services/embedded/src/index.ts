export { startEmbedded, openOpsContext, type EmbeddedSystem } from './system.ts';
export { loadEmbeddedConfig, type EmbeddedConfig } from './config.ts';
export { seedDemo, demoAccounts, demoTenant, type DemoSeedResult } from './demo-seed.ts';
export { envVars, type EnvVar, type Deployment } from './env.ts';
