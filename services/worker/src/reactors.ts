import type { Reactor } from '@renkei/projections';

/** Every reactor the worker runs (imports, mail delivery, alert evaluation); one entry each. */
export const reactors: readonly Reactor[] = [];
