import { parseLabelValueImportEvent, type LabelValueImportRequested } from '@renkei/domain';
import { invalid, type Decider } from '../shared/decider.ts';

export type LabelValueImportEvent = ReturnType<typeof parseLabelValueImportEvent>;

export interface RequestLabelValueImport {
  importId: string;
  filename: string;
  storedPath: string;
  encoding: LabelValueImportRequested['encoding'];
}

/** An import is requested once; the worker's reactor appends the rest of its stream. */
export const labelValueImportDecider: Decider<{ requested: boolean }, RequestLabelValueImport, LabelValueImportEvent> =
  {
    initialState: () => ({ requested: false }),
    evolve: (state, event) => (event.type === 'LabelValueImportRequested' ? { requested: true } : state),
    decide: (state, command) =>
      state.requested
        ? invalid({ field: 'file', message: 'この取り込みは既に登録されています' })
        : [
            {
              type: 'LabelValueImportRequested',
              data: {
                import_id: command.importId,
                filename: command.filename,
                stored_path: command.storedPath,
                encoding: command.encoding,
              },
            },
          ],
    parse: parseLabelValueImportEvent,
  };
