import { sql } from 'kysely';
import { defineProjection } from '@renkei/projections';
import { createTables, tableNames } from '../shared/table.ts';
import { medicalInstitutionCrmTables } from './medical-institution-crm.tables.ts';
import { decodeCrmEvent, type Applied } from './crm/crm-event.ts';
import { CrmNotesAndPhases } from './crm/notes-and-phases.ts';
import { CrmTags } from './crm/tags.ts';
import { CrmLabelValues } from './crm/label-values.ts';
import { CrmDoctors } from './crm/doctors.ts';
import { CrmSettings } from './crm/settings.ts';
import { CrmHistories } from './crm/histories.ts';

/**
 * `medical_institution_crm`: every tenant's CRM data about institutions (memo, special note, phase,
 * tags, label values, doctors), the change history read from those events, and the settings they
 * refer to (labels, phase masters, own departments, account names for "who"). One projection, so
 * the history can name labels and phases as they were when the change happened; each concern is a
 * part in `crm/`.
 *
 * A batch is folded in memory, in event order, per row key; then each part issues a fixed number of
 * set-based statements per table (tenant-wide deletions first, then row deletions, then upserts), so
 * the cost does not grow with the number of events. State the history needs "as it was" (label
 * definitions, a doctor's previous fields) is loaded once up front and kept current while folding.
 */
export const medicalInstitutionCrmProjection = defineProjection({
  name: 'medical_institution_crm',
  // v2: batched writes (v1 wrote per event) and TagDeleted. v3: histories keep their event position.
  // v4: histories keyed by institution and position (one index instead of two), values with room for HOT updates.
  version: 4,
  eventTypes: decodeCrmEvent.types,
  tables: tableNames(medicalInstitutionCrmTables),
  async setup(trx, t) {
    await createTables(trx, medicalInstitutionCrmTables, t);
    // Room on each page for a value rewritten by an import to stay there: an update that changes no
    // indexed column then adds no index entry (a HOT update), where a full page moves the row and adds two.
    await sql`ALTER TABLE ${sql.table(t.mi_label_values)} SET (fillfactor = 70)`.execute(trx);
  },
  async handle(trx, events, t) {
    const decoded = events.map((recorded) => ({
      recorded,
      tenantId: recorded.metadata.tenant_id,
      event: decodeCrmEvent(recorded),
    }));
    const notesAndPhases = new CrmNotesAndPhases();
    const tags = new CrmTags();
    const labelValues = await CrmLabelValues.load(trx, t, decoded);
    const doctors = await CrmDoctors.load(trx, t, decoded);
    const settings = new CrmSettings();
    const histories = new CrmHistories();

    for (const { recorded, tenantId, event } of decoded) {
      const a: Applied = {
        tenantId,
        accountId: recorded.metadata.account_id ?? null,
        at: recorded.created_at.toISOString(),
        revision: recorded.revision,
        history: histories.recorder(recorded),
      };
      switch (event.type) {
        case 'MedicalInstitutionMemoChanged':
        case 'MedicalInstitutionSpecialNoteChanged':
          notesAndPhases.applyNote(event, a);
          break;
        case 'MedicalInstitutionPhaseChanged':
          notesAndPhases.applyPhase(event, a);
          break;
        case 'PhaseMastersReplaced':
          notesAndPhases.applyPhaseMasters(event, a);
          break;
        case 'MedicalInstitutionTagsChanged':
          tags.applyTagsChanged(event, a);
          break;
        case 'TagDeleted':
          tags.applyTagDeleted(event, a);
          break;
        case 'MedicalInstitutionLabelValuesChanged':
          labelValues.applyValues(event, a);
          break;
        case 'MedicalInstitutionLabelValuesImported':
          labelValues.applyImported(event, a);
          break;
        case 'MedicalInstitutionLabelCreated':
        case 'MedicalInstitutionLabelUpdated':
          labelValues.applyLabelDefined(event, a);
          break;
        case 'MedicalInstitutionLabelDeleted':
          labelValues.applyLabelDeleted(event, a);
          break;
        case 'MedicalInstitutionLabelsReordered':
          labelValues.applyLabelsReordered(event, a);
          break;
        case 'DoctorAdded':
        case 'DoctorUpdated':
          doctors.applyDoctor(event, a);
          break;
        case 'DoctorRemoved':
          doctors.applyDoctorRemoved(event, a);
          break;
        case 'OwnDepartmentsReplaced':
          settings.applyOwnDepartments(event, a);
          break;
        case 'AccountRegistered':
        case 'AccountUpdated':
          settings.applyAccount(event, a);
          break;
        default: {
          const never: never = event;
          throw new Error(`medical_institution_crm: unexpected event ${JSON.stringify(never)}`);
        }
      }
    }

    // The order of the original single pass: a row a later part refers to is written first.
    await notesAndPhases.write(trx, t);
    await tags.write(trx, t);
    await labelValues.write(trx, t);
    await doctors.write(trx, t);
    await settings.write(trx, t);
    await histories.write(trx, t);
  },
});
