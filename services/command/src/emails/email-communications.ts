import { sql } from 'kysely';
import type { CommunicationCreateInput } from '@renkei/contracts';
import type { Database } from '@renkei/db';
import { communicationAggregate, emailCommunicationId, type EmailDraftSaved } from '@renkei/domain';
import { WrongExpectedRevisionError, streamId, type EventStore } from '@renkei/event-store';
import type { AuthContext } from '@renkei/service-kit';
import {
  communicationDecider,
  type CommunicationCommand,
  type CommunicationEvent,
  type CommunicationState,
} from '../communications/communication.decider.ts';
import { handleCommand } from '../shared/command-handler.ts';
import type { Decider } from '../shared/decider.ts';
import { deterministicId } from '../shared/deterministic-id.ts';

/**
 * The communications decider, with the campaign's id carried on the record it creates: the record is
 * checked exactly as one entered by hand (same events, same rules), and the projection of the emails
 * links it back to the campaign (the communication's `email` field).
 */
function fromEmailDecider(emailId: string): Decider<CommunicationState, CommunicationCommand, CommunicationEvent> {
  return {
    ...communicationDecider,
    decide(state, command, now) {
      const decision = communicationDecider.decide(state, command, now);
      if (!Array.isArray(decision)) return decision;
      return decision.map((e) =>
        e.type === 'CommunicationCreated' ? { ...e, data: { ...e.data, email_id: emailId } } : e,
      );
    },
  };
}

/** The date in Japan (the timeline's days are Japanese days) of an instant. */
const japaneseDate = (iso: string) => new Date(Date.parse(iso) + 9 * 3600_000).toISOString().slice(0, 10);

/**
 * The institutions a campaign went to, with the number of recipients of each: the institution of a
 * chosen doctor, or the institution whose code a recipients-file row names (an unknown code names none).
 */
async function recipientInstitutions(db: Database, draft: EmailDraftSaved): Promise<Map<string, number>> {
  const codes = [
    ...new Set(draft.recipients.flatMap((r) => (r.medical_institution_id ? [] : [r.institution_code ?? '']))),
  ]
    .map((c) => c.trim())
    .filter(Boolean);
  const byCode = new Map<string, string>();
  if (codes.length > 0) {
    const { rows } = await sql<{ id: string; code: string }>`
      SELECT id, code FROM ref.medical_institutions WHERE code = ANY(${sql.val(codes)}::text[])`.execute(db.kysely);
    for (const row of rows) byCode.set(row.code, row.id);
  }
  const counts = new Map<string, number>();
  for (const r of draft.recipients) {
    const id = r.medical_institution_id ?? byCode.get((r.institution_code ?? '').trim());
    if (id) counts.set(id, (counts.get(id) ?? 0) + 1);
  }
  return counts;
}

export interface EmailCommunicationsInput {
  emailId: string;
  draft: EmailDraftSaved;
  sentAt: string;
  /** The account that sent the campaign: who acted on every record. */
  sentBy: string;
}

/**
 * One communication of type `email` per recipient institution of a sent campaign, through the command
 * handler. Ids (record and event) derive from the campaign and the institution, so running this again
 * (the send repeated, or resumed after a crash) adds only the records still missing and never a second
 * one. Labels are not asked for: nobody fills a form for these records (docs/decisions.md, "Email
 * campaigns on the timeline").
 */
export async function recordEmailCommunications(
  deps: { db: Database; store: EventStore; auth: AuthContext; requestId: string },
  input: EmailCommunicationsInput,
): Promise<number> {
  const institutions = [...(await recipientInstitutions(deps.db, input.draft))];
  const decider = fromEmailDecider(input.emailId);
  const auth = { ...deps.auth, accountId: input.sentBy };
  let created = 0;
  // A few at a time: a campaign to thousands of clinics is thousands of small appends.
  for (let i = 0; i < institutions.length; i += 16) {
    await Promise.all(
      institutions.slice(i, i + 16).map(async ([institutionId, count]) => {
        const communicationId = emailCommunicationId(input.emailId, institutionId);
        const commandInput: CommunicationCreateInput = {
          communication_type: 'email',
          acted_date: japaneseDate(input.sentAt),
          category: null,
          purpose: null,
          story: `メール「${input.draft.title}」を送信しました（この医療機関の送信先 ${count} 件）`,
          event_name: null,
          memo: '',
          other_memo: '',
          person_in_charge_hospital: null,
          attendee: null,
          is_doctor_attended: false,
          user_id: input.sentBy,
          attachment_ids: [],
          label_values: [],
          tasks: [],
        };
        try {
          await handleCommand(
            { store: deps.store, auth, requestId: deps.requestId },
            {
              stream: streamId(communicationAggregate, communicationId),
              decider,
              command: {
                type: 'CreateCommunication',
                communicationId,
                medicalInstitutionId: institutionId,
                callerId: input.sentBy,
                input: commandInput,
                facts: { labels: [], ownDepartmentIds: new Set<string>(), accountIds: new Set([input.sentBy]) },
                newTaskId: () => {
                  throw new Error('a campaign record has no tasks');
                },
              },
              isNew: true,
              onRace: 'conflict',
              eventId: (n) => deterministicId(communicationId, 'email-communication', String(n)),
            },
          );
          created++;
        } catch (error) {
          // Recorded before (the same event id is taken as the same append, or the stream is there).
          if (!(error instanceof WrongExpectedRevisionError)) throw error;
        }
      }),
    );
  }
  return created;
}
