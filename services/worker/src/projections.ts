import type { Projection } from '@renkei/projections';

/**
 * Every read model the worker maintains. Query-side modules own their projection definitions;
 * add each one here (one import and one entry per projection).
 */
export const projections: readonly Projection<any>[] = [];
