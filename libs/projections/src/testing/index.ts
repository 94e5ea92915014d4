// Test helpers only: they import vitest, so they are a subpath of their own (`@renkei/projections/testing`)
// that production code never loads.
export { projectionTest, type GivenEvent, type ProjectionScenario, type ProjectionTest } from './projection-test.ts';
