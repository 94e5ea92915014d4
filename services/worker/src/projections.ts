import type { Projection } from '@renkei/projections';
import { readModelProjections } from '@renkei/read-models';

/** Every read model the worker maintains; the definitions live in `@renkei/read-models`. */
export const projections: readonly Projection<any>[] = readModelProjections;
