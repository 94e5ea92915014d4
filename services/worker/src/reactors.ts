import type { Reactor } from '@renkei/projections';
import { labelValueImportReactor } from './reactors/label-value-import.reactor.ts';

/** Every reactor the worker runs (imports, mail delivery, alert evaluation); one entry each. */
export const reactors: readonly Reactor[] = [labelValueImportReactor];
