import { evolveAlert, initialAlertState, parseAlertEvent, type AlertEvent, type AlertState } from '@renkei/domain';
import { notFound, type Decider, type Decision } from '../shared/decider.ts';

/** Users only archive alerts; the worker's evaluation raises and updates them (`evaluationEvents`). */
export type AlertCommand = { type: 'ArchiveAlert'; alertId: string };

function decide(state: AlertState, command: AlertCommand): Decision<AlertEvent> {
  switch (command.type) {
    case 'ArchiveAlert':
      if (state.status === 'absent') return notFound();
      // Archiving an archived alert changes nothing and is not an error (a double click, a bulk retry).
      if (state.status === 'archived') return [];
      return [{ type: 'AlertArchived', data: { alert_id: command.alertId } }];
    default: {
      const never: never = command.type;
      return never;
    }
  }
}

export const alertDecider: Decider<AlertState, AlertCommand, AlertEvent> = {
  initialState: initialAlertState,
  evolve: evolveAlert,
  decide,
  parse: parseAlertEvent,
};
