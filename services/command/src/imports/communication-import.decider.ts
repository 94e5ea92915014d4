import { parseCommunicationImportEvent, type CommunicationImportRequested } from '@renkei/domain';
import { invalid, notFound, type Decider } from '../shared/decider.ts';

export type CommunicationImportEvent = ReturnType<typeof parseCommunicationImportEvent>;

export interface CommunicationImportState {
  status: 'absent' | 'waiting' | 'processing' | 'finished' | 'deleted';
  mode: CommunicationImportRequested['mode'] | null;
  /** Records the import created, in file order: what an undo deletes (create mode). */
  createdIds: string[];
  /** Records the import changed (update mode; may repeat): what an undo restores. */
  changedIds: string[];
}

export type CommunicationImportCommand =
  | {
      type: 'RequestCommunicationImport';
      importId: string;
      filename: string;
      storedPath: string;
      encoding: CommunicationImportRequested['encoding'];
      mode: CommunicationImportRequested['mode'];
    }
  | { type: 'DeleteCommunicationImport'; importId: string };

function evolve(state: CommunicationImportState, event: CommunicationImportEvent): CommunicationImportState {
  switch (event.type) {
    case 'CommunicationImportRequested':
      return { ...state, status: 'waiting', mode: event.data.mode };
    case 'CommunicationImportStarted':
      // A resumed run starts again: what earlier chunks created stays recorded in them.
      return { ...state, status: 'processing' };
    case 'CommunicationImportChunkProcessed':
      return state.mode === 'update'
        ? { ...state, changedIds: [...state.changedIds, ...event.data.communication_ids] }
        : { ...state, createdIds: [...state.createdIds, ...event.data.communication_ids] };
    case 'CommunicationImportFinished':
      return { ...state, status: 'finished' };
    case 'CommunicationImportDeleted':
      return { ...state, status: 'deleted' };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * An import is requested once; the worker's reactor appends its progress. It is undone only once it
 * has finished (the route refuses a running one with 409 before deciding): the records it created are
 * deleted, or those it changed get their previous values back, by the route, one command each, and
 * then the import itself is recorded as deleted.
 */
export const communicationImportDecider: Decider<
  CommunicationImportState,
  CommunicationImportCommand,
  CommunicationImportEvent
> = {
  initialState: () => ({ status: 'absent', mode: null, createdIds: [], changedIds: [] }),
  evolve,
  decide: (state, command) => {
    switch (command.type) {
      case 'RequestCommunicationImport':
        if (state.status !== 'absent') return invalid({ field: 'file', message: 'この取り込みは既に登録されています' });
        return [
          {
            type: 'CommunicationImportRequested',
            data: {
              import_id: command.importId,
              filename: command.filename,
              stored_path: command.storedPath,
              encoding: command.encoding,
              mode: command.mode,
            },
          },
        ];
      case 'DeleteCommunicationImport':
        if (state.status === 'absent' || state.status === 'deleted') return notFound();
        return [{ type: 'CommunicationImportDeleted', data: { import_id: command.importId } }];
      default: {
        const never: never = command;
        return never;
      }
    }
  },
  parse: parseCommunicationImportEvent,
};

/** Whether the import's run is not over yet (it cannot be undone meanwhile). */
export const importRunning = (state: CommunicationImportState): boolean =>
  state.status === 'waiting' || state.status === 'processing';
