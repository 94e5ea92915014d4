/**
 * Cases that fail today because of a defect being fixed elsewhere, with the reason. Such a case still
 * runs; its failure does not fail the run, and when it passes the run lists it at the end ("Known
 * failures that passed"), so the entry is removed once the fix has merged. Key: `<endpoint id> <attack
 * kind>` (`fuzz.invalid.<mutation>`, `uploads.<case>`), `*` for every endpoint.
 */
// Empty: every case the suite sends is expected to pass (2026-11-24: the last suite limitations went).
const knownFailures: Record<string, string> = {};

export const isKnownFailure = (endpointId: string, kind: string): string | undefined =>
  knownFailures[`${endpointId} ${kind}`] ?? knownFailures[`* ${kind}`];
