import type { Projection } from '@renkei/projections';
import { readModelProjections } from '@renkei/read-models';

/** The read models the query service reads; the worker runs them (the list lives in `@renkei/read-models`). */
export const queryProjections: readonly Projection<any>[] = readModelProjections;
