import type { CommunicationCreateInput, CommunicationUpdateInput, FieldError } from '@renkei/contracts';
import {
  blankLabelValue,
  checkLabelValues,
  parseCommunicationEvent,
  stableJson,
  type CommunicationFields,
  type CommunicationLabelDefinition,
  type CommunicationTaskData,
  type LabelValueData,
} from '@renkei/domain';
import { invalid, notFound, type Decider, type Decision } from '../shared/decider.ts';
import { toLabelDefinition } from './communication-label.decider.ts';

export type CommunicationEvent = ReturnType<typeof parseCommunicationEvent>;

export interface CommunicationComment {
  comment_id: string;
  user_id: string;
  comment: string;
  /** Edits of the comment (0 after it was added): the ETag of its PUT, the If-Match its author may send. */
  version: number;
}

export interface CommunicationState {
  status: 'absent' | 'active' | 'deleted';
  fields: CommunicationFields | null;
  tasks: CommunicationTaskData[];
  /** Saves of the record itself (0 after the create): its `version`, the If-Match a client sends. */
  version: number;
  comments: CommunicationComment[];
  likes: string[];
  /** An imported record: when its import made it (its creation time; its stream begins later). */
  importedAt?: string;
}

/** Facts from other streams that a record's fields are checked against (read by the route). */
export interface CommunicationFacts {
  /** The tenant's communication labels (all types; the record's type picks its own). */
  labels: readonly CommunicationLabelDefinition[];
  ownDepartmentIds: ReadonlySet<string>;
  /** Accounts of the tenant among the ids the input names. */
  accountIds: ReadonlySet<string>;
  /**
   * The tenant's uploaded files among the attachment ids the input names, each with the
   * communication that references it (null: none yet). Absent: no file is known.
   */
  files?: ReadonlyMap<string, string | null>;
}

export type CommunicationCommand =
  | {
      type: 'CreateCommunication';
      communicationId: string;
      medicalInstitutionId: string;
      /** The staff member who acted when the input names nobody: the caller. */
      callerId: string;
      input: CommunicationCreateInput;
      facts: CommunicationFacts;
      newTaskId: () => string;
    }
  | {
      type: 'UpdateCommunication';
      communicationId: string;
      callerId: string;
      input: CommunicationUpdateInput;
      facts: CommunicationFacts;
    }
  | { type: 'DeleteCommunication'; communicationId: string }
  | { type: 'AddComment'; communicationId: string; commentId: string; userId: string; comment: string }
  | { type: 'EditComment'; communicationId: string; commentId: string; comment: string }
  | { type: 'DeleteComment'; communicationId: string; commentId: string }
  | { type: 'Like'; communicationId: string; userId: string }
  | { type: 'Unlike'; communicationId: string; userId: string };

function evolve(state: CommunicationState, event: CommunicationEvent): CommunicationState {
  switch (event.type) {
    case 'CommunicationCreated': {
      const { tasks, ...fields } = event.data;
      return { ...state, status: 'active', fields, tasks, version: 0 };
    }
    case 'CommunicationImportAdopted': {
      const { import_id: _import, imported_at: _at, ...fields } = event.data;
      return { ...state, status: 'active', fields, tasks: [], version: 0, importedAt: event.data.imported_at };
    }
    case 'CommunicationUpdated':
      return { ...state, fields: event.data, version: state.version + 1 };
    case 'CommunicationDeleted':
      return { ...state, status: 'deleted' };
    case 'CommunicationCommentAdded':
      return {
        ...state,
        comments: [
          ...state.comments,
          {
            comment_id: event.data.comment_id,
            user_id: event.data.user_id,
            comment: event.data.comment,
            version: 0,
          },
        ],
      };
    case 'CommunicationCommentEdited':
      return {
        ...state,
        comments: state.comments.map((c) =>
          c.comment_id === event.data.comment_id ? { ...c, comment: event.data.comment, version: c.version + 1 } : c,
        ),
      };
    case 'CommunicationCommentDeleted':
      return { ...state, comments: state.comments.filter((c) => c.comment_id !== event.data.comment_id) };
    case 'CommunicationLiked':
      return { ...state, likes: [...state.likes, event.data.user_id] };
    case 'CommunicationUnliked':
      return { ...state, likes: state.likes.filter((id) => id !== event.data.user_id) };
    default: {
      const never: never = event;
      return never;
    }
  }
}

/**
 * The record's fields from its input, checked against the facts: the acting staff member and task
 * staff must be accounts of the tenant, label values must fit the labels of the record's type, and
 * every required label of that type must have a value.
 */
function fieldsOf(
  communicationId: string,
  medicalInstitutionId: string,
  callerId: string,
  input: CommunicationUpdateInput,
  facts: CommunicationFacts,
  /** The record as it is (an update): what it holds of deleted labels and choices is kept. */
  prev: CommunicationFields | null = null,
): { fields: CommunicationFields } | { errors: FieldError[] } {
  const errors: FieldError[] = [];
  const userId = input.user_id ?? callerId;
  // An edit that keeps who acted is not checked again: the route looks up only the accounts the input names.
  if (userId !== prev?.user_id && !facts.accountIds.has(userId))
    errors.push({ field: 'user_id', message: '担当者が見つかりません' });
  // A file belongs to one record: attaching another record's file would let one edit remove it from both.
  input.attachment_ids.forEach((fileId, i) => {
    const holder = facts.files?.get(fileId);
    const field = `attachment_ids.${i}`;
    if (holder === undefined) errors.push({ field, message: '添付ファイルが見つかりません' });
    else if (holder !== null && holder !== communicationId)
      errors.push({ field, message: 'このファイルは他の活動記録に添付されています' });
    else if (input.attachment_ids.indexOf(fileId) !== i)
      errors.push({ field, message: '同じファイルが重複して添付されています' });
  });
  const labels = facts.labels.filter((l) => l.communication_type === input.communication_type);
  const checked = checkLabelValues(
    input.label_values,
    new Map(labels.map((l) => [l.label_id, toLabelDefinition(l)])),
    facts.ownDepartmentIds,
  );
  const { values, problems } = keepReadableValues(input, prev, facts, checked);
  for (const p of problems) errors.push({ field: `label_values.${p.index}.${p.field}`, message: p.message });
  const answered = new Set(values.map((v) => v.label_id));
  for (const label of labels) {
    if (label.is_required && !answered.has(label.label_id) && !problems.length)
      errors.push({ field: 'label_values', message: `「${label.name}」を入力してください` });
  }
  if (errors.length > 0) return { errors };
  return {
    fields: {
      communication_id: communicationId,
      medical_institution_id: medicalInstitutionId,
      communication_type: input.communication_type,
      acted_date: input.acted_date,
      category: input.category || null,
      purpose: input.purpose || null,
      story: input.story,
      event_name: input.event_name || null,
      memo: input.memo,
      other_memo: input.other_memo,
      person_in_charge_hospital: input.person_in_charge_hospital || null,
      attendee: input.attendee || null,
      is_doctor_attended: input.is_doctor_attended,
      user_id: userId,
      attachment_ids: input.attachment_ids,
      label_values: values,
    },
  };
}

/**
 * Values of deleted labels and choices stay readable (docs/decisions.md): an edit keeps what the record
 * holds of a deleted label when it does not mention it, and accepts a value sent back exactly as stored
 * (a choice or own department deleted since included). Clearing such a value (an empty one) removes it;
 * any other value of a deleted label or choice is refused as before. Values of the record's former type
 * go when the type changes, as the live ones of that type do.
 */
function keepReadableValues(
  input: CommunicationUpdateInput,
  prev: CommunicationFields | null,
  facts: CommunicationFacts,
  checked: ReturnType<typeof checkLabelValues>,
): { values: LabelValueData[]; problems: ReturnType<typeof checkLabelValues>['problems'] } {
  if (!prev || prev.communication_type !== input.communication_type)
    return { values: checked.values, problems: checked.problems };
  const stored = new Map(prev.label_values.map((v) => [v.label_id, v]));
  const asStored = (v: LabelValueData) => {
    const was = stored.get(v.label_id);
    return was !== undefined && stableJson(was) === stableJson({ ...blankLabelValue(v.label_id), ...v });
  };
  const live = new Set(facts.labels.map((l) => l.label_id));
  const cleared = (v: LabelValueData) =>
    !live.has(v.label_id) &&
    stableJson({ ...blankLabelValue(v.label_id), ...v, text_value: v.text_value || null }) ===
      stableJson(blankLabelValue(v.label_id));
  const kept = checked.problems.filter((p) => asStored(input.label_values[p.index]!));
  const problems = checked.problems.filter((p) => !kept.includes(p) && !cleared(input.label_values[p.index]!));
  const values = [...checked.values];
  const has = new Set(values.map((v) => v.label_id));
  for (const p of kept) {
    const labelId = input.label_values[p.index]!.label_id;
    if (!has.has(labelId)) values.push(stored.get(labelId)!);
    has.add(labelId);
  }
  const mentioned = new Set(input.label_values.map((v) => v.label_id));
  for (const v of prev.label_values)
    if (!live.has(v.label_id) && !mentioned.has(v.label_id) && !has.has(v.label_id)) values.push(v);
  return { values, problems };
}

const isLive = (state: CommunicationState) => state.status === 'active';

function decide(state: CommunicationState, command: CommunicationCommand): Decision<CommunicationEvent> {
  switch (command.type) {
    case 'CreateCommunication': {
      if (state.status !== 'absent') return invalid({ field: 'id', message: 'この活動記録は既に登録されています' });
      const { input, facts } = command;
      const result = fieldsOf(command.communicationId, command.medicalInstitutionId, command.callerId, input, facts);
      const errors = 'errors' in result ? [...result.errors] : [];
      input.tasks.forEach((t, i) => {
        if (t.staff_id !== null && !facts.accountIds.has(t.staff_id))
          errors.push({ field: `tasks.${i}.staff_id`, message: 'タスクの担当者が見つかりません' });
      });
      if (errors.length > 0 || !('fields' in result)) return invalid(...errors);
      const tasks = input.tasks.map((t) => ({
        task_id: command.newTaskId(),
        title: t.title,
        staff_id: t.staff_id,
        deadline: t.deadline,
      }));
      return [{ type: 'CommunicationCreated', data: { ...result.fields, tasks } }];
    }
    case 'UpdateCommunication': {
      if (!isLive(state)) return notFound();
      const prev = state.fields!;
      const result = fieldsOf(
        command.communicationId,
        prev.medical_institution_id,
        command.callerId,
        // An edit that names nobody keeps who acted, not the editor.
        { ...command.input, user_id: command.input.user_id ?? prev.user_id },
        command.facts,
        prev,
      );
      if ('errors' in result) return invalid(...result.errors);
      if (stableJson(prev) === stableJson(result.fields)) return [];
      return [{ type: 'CommunicationUpdated', data: result.fields }];
    }
    case 'DeleteCommunication':
      if (!isLive(state)) return notFound();
      return [
        {
          type: 'CommunicationDeleted',
          data: {
            communication_id: command.communicationId,
            medical_institution_id: state.fields!.medical_institution_id,
          },
        },
      ];
    case 'AddComment':
      if (!isLive(state)) return notFound();
      return [
        {
          type: 'CommunicationCommentAdded',
          data: {
            communication_id: command.communicationId,
            comment_id: command.commentId,
            user_id: command.userId,
            comment: command.comment,
          },
        },
      ];
    case 'EditComment': {
      const comment = findComment(state, command.commentId);
      if (!comment) return notFound();
      if (comment.comment === command.comment) return [];
      return [
        {
          type: 'CommunicationCommentEdited',
          data: { communication_id: command.communicationId, comment_id: command.commentId, comment: command.comment },
        },
      ];
    }
    case 'DeleteComment':
      if (!findComment(state, command.commentId)) return notFound();
      return [
        {
          type: 'CommunicationCommentDeleted',
          data: { communication_id: command.communicationId, comment_id: command.commentId },
        },
      ];
    case 'Like':
      if (!isLive(state)) return notFound();
      if (state.likes.includes(command.userId)) return [];
      return [
        { type: 'CommunicationLiked', data: { communication_id: command.communicationId, user_id: command.userId } },
      ];
    case 'Unlike':
      if (!isLive(state)) return notFound();
      if (!state.likes.includes(command.userId)) return [];
      return [
        { type: 'CommunicationUnliked', data: { communication_id: command.communicationId, user_id: command.userId } },
      ];
    default: {
      const never: never = command;
      return never;
    }
  }
}

/** A comment of a live record (a deleted record's comments are gone with it). */
export const findComment = (state: CommunicationState, commentId: string): CommunicationComment | undefined =>
  isLive(state) ? state.comments.find((c) => c.comment_id === commentId) : undefined;

export const communicationDecider: Decider<CommunicationState, CommunicationCommand, CommunicationEvent> = {
  initialState: () => ({ status: 'absent', fields: null, tasks: [], version: 0, comments: [], likes: [] }),
  evolve,
  decide,
  parse: parseCommunicationEvent,
};
