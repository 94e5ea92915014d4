import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, NoContent, inputDate, queryBoolean } from '../core/zod-helpers.ts';
import { PrefectureCode } from '../core/refs.ts';

/** Spec §9. */
export const LabelComponentType = z.enum([
  'text',
  'textarea',
  'integer',
  'select',
  'radio',
  'checkbox',
  'date',
  'time',
  'own_department',
  'area',
]);
export type LabelComponentType = z.infer<typeof LabelComponentType>;

/** Spec §1: the communication types. */
export const CommunicationType = z.enum([
  'visit',
  'new_visit',
  'phone',
  'email',
  'postal_item',
  'event_attendance',
  'referral_acceptance',
  'refused_referral',
  'other',
]);
export type CommunicationType = z.infer<typeof CommunicationType>;

/** The types as the screens, CSV exports and reports name them. */
export const communicationTypeNames: Record<CommunicationType, string> = {
  visit: '訪問',
  new_visit: '新規訪問',
  phone: '電話',
  email: 'メール',
  postal_item: '郵送物',
  event_attendance: 'イベント参加',
  referral_acceptance: '紹介受入',
  refused_referral: '紹介お断り',
  other: 'その他',
};

export const LabelSelection = z.object({ id: Id, label: z.string(), order: z.number().int() });
export type LabelSelection = z.infer<typeof LabelSelection>;

const selectionsInput = z
  .array(
    z.object({
      /** Absent for a new choice; an existing id keeps the values that chose it. */
      id: Id.optional(),
      label: z.string().trim().min(1, '選択肢を入力してください').max(50, '選択肢は50文字以内で入力してください'),
    }),
  )
  .max(100, '選択肢は100件まで登録できます')
  .default([]);

const labelName = z
  .string()
  .trim()
  .min(1, 'ラベル名を入力してください')
  .max(50, 'ラベル名は50文字以内で入力してください');
const labelDescription = z.string().max(200, '説明は200文字以内で入力してください').default('');

const choiceTypes: readonly LabelComponentType[] = ['select', 'radio', 'checkbox'];
function requireSelections(
  value: { component_type: LabelComponentType; selections: unknown[] },
  ctx: z.RefinementCtx,
): void {
  if (choiceTypes.includes(value.component_type) && value.selections.length === 0) {
    ctx.addIssue({ code: 'custom', path: ['selections'], message: '選択肢を1件以上登録してください' });
  }
}

export const CommunicationLabel = z.object({
  id: Id,
  name: z.string(),
  communication_type: CommunicationType,
  component_type: LabelComponentType,
  order: z.number().int(),
  description: z.string(),
  selections: z.array(LabelSelection),
  is_required: z.boolean(),
  version: z.number().int(),
  /**
   * Renkei addition, only in a list asked with `include_deleted`: the label was deleted. Its records keep
   * their values, which are shown as 「ラベル名（削除済み）: 値」 (docs/decisions.md).
   */
  is_deleted: z.boolean().optional(),
  /** Renkei addition, only with `include_deleted`: choices removed from the label, to name the values that chose them. */
  deleted_selections: z.array(LabelSelection).optional(),
});
export type CommunicationLabel = z.infer<typeof CommunicationLabel>;

export const CommunicationLabelInput = z
  .object({
    name: labelName,
    communication_type: CommunicationType,
    component_type: LabelComponentType,
    description: labelDescription,
    selections: selectionsInput,
    is_required: z.boolean().default(false),
  })
  .superRefine(requireSelections);
export type CommunicationLabelInput = z.infer<typeof CommunicationLabelInput>;

export const CommunicationLabelListQuery = z.object({
  communication_type: CommunicationType.optional(),
  /** Renkei addition: deleted labels too (flagged), to name the values records keep of them. */
  include_deleted: queryBoolean.default(false),
});

export const LabelAreaAddress = z.object({
  prefecture: PrefectureCode,
  /** 市区町村名; empty means the whole prefecture. */
  city_or_locality: z.string().max(50, '市区町村は50文字以内で入力してください'),
});
export type LabelAreaAddress = z.infer<typeof LabelAreaAddress>;

export const LabelArea = z.object({ id: Id, name: z.string(), addresses: z.array(LabelAreaAddress) });
export type LabelArea = z.infer<typeof LabelArea>;

export const MedicalInstitutionLabel = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  component_type: LabelComponentType,
  order: z.number().int(),
  selections: z.array(LabelSelection),
  areas: z.array(LabelArea),
  version: z.number().int(),
});
export type MedicalInstitutionLabel = z.infer<typeof MedicalInstitutionLabel>;

export const MedicalInstitutionLabelInput = z
  .object({
    name: labelName,
    description: labelDescription,
    component_type: LabelComponentType,
    selections: selectionsInput,
    areas: z
      .array(
        z.object({
          id: Id.optional(),
          name: z
            .string()
            .trim()
            .min(1, 'エリア名を入力してください')
            .max(50, 'エリア名は50文字以内で入力してください'),
          addresses: z.array(LabelAreaAddress).min(1, '住所を1件以上登録してください').max(200),
        }),
      )
      .max(100, 'エリアは100件まで登録できます')
      .default([]),
  })
  .superRefine((value, ctx) => {
    requireSelections(value, ctx);
    if (value.component_type === 'area' && value.areas.length === 0) {
      ctx.addIssue({ code: 'custom', path: ['areas'], message: 'エリアを1件以上登録してください' });
    }
  });
export type MedicalInstitutionLabelInput = z.infer<typeof MedicalInstitutionLabelInput>;

/** The new order of all labels of one kind: every id exactly once. */
export const LabelOrdersInput = z.object({
  label_ids: z
    .array(Id)
    .min(1, '並び順を指定してください')
    .refine((ids) => new Set(ids).size === ids.length, '同じラベルが重複しています'),
});
export type LabelOrdersInput = z.infer<typeof LabelOrdersInput>;

/**
 * A label value as stored; exactly the field(s) of the label's component type are set, the rest null.
 * Spec §3 lists date/time/own_department values for communication labels only; institution labels share
 * the component types, so their values carry the same fields.
 */
export const LabelValue = z.object({
  label_id: Id,
  text_value: z.string().nullable(),
  integer_value: z.number().int().nullable(),
  date_value: z.iso.date().nullable(),
  time_value: z.string().nullable(),
  selection_id: Id.nullable(),
  selection_ids: z.array(Id),
  own_department_id: Id.nullable(),
  area_id: Id.nullable(),
});
export type LabelValue = z.infer<typeof LabelValue>;

/** Which field must be set is checked against the label's component type by the command service. */
export const LabelValueInput = z.object({
  label_id: Id,
  text_value: z.string().max(2000, 'テキストは2000文字以内で入力してください').nullable().default(null),
  integer_value: z
    .number({ error: '整数を入力してください' })
    .int('整数を入力してください')
    .min(-2147483648)
    .max(2147483647)
    .nullable()
    .default(null),
  date_value: inputDate('日付はYYYY-MM-DD形式で入力してください').nullable().default(null),
  time_value: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, '時刻はHH:MM形式で入力してください')
    .nullable()
    .default(null),
  selection_id: Id.nullable().default(null),
  selection_ids: z.array(Id).max(100).default([]),
  own_department_id: Id.nullable().default(null),
  area_id: Id.nullable().default(null),
});
export type LabelValueInput = z.infer<typeof LabelValueInput>;

export const labelEndpoints = {
  listCommunicationLabels: endpoint({
    id: 'labels.listCommunicationLabels',
    area: 'labels',
    method: 'GET',
    path: '/communication_labels',
    service: 'query',
    summary: '活動ラベル一覧',
    query: CommunicationLabelListQuery,
    response: z.array(CommunicationLabel),
    successStatus: 200,
    feature: 'communication_labels',
    served: true,
  }),
  createCommunicationLabel: endpoint({
    id: 'labels.createCommunicationLabel',
    area: 'labels',
    method: 'POST',
    path: '/communication_labels',
    service: 'command',
    summary: '活動ラベル作成',
    body: CommunicationLabelInput,
    response: CommunicationLabel,
    successStatus: 201,
    feature: 'communication_labels',
    ownerOnly: true,
    served: true,
  }),
  updateCommunicationLabel: endpoint({
    id: 'labels.updateCommunicationLabel',
    area: 'labels',
    method: 'PUT',
    path: '/communication_labels/{id}',
    service: 'command',
    summary: '活動ラベル更新',
    params: IdParams,
    body: CommunicationLabelInput,
    response: CommunicationLabel,
    successStatus: 200,
    feature: 'communication_labels',
    ownerOnly: true,
    served: true,
  }),
  deleteCommunicationLabel: endpoint({
    id: 'labels.deleteCommunicationLabel',
    area: 'labels',
    method: 'DELETE',
    path: '/communication_labels/{id}',
    service: 'command',
    summary: '活動ラベル削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    feature: 'communication_labels',
    ownerOnly: true,
    served: true,
  }),
  orderCommunicationLabels: endpoint({
    id: 'labels.orderCommunicationLabels',
    area: 'labels',
    method: 'PUT',
    path: '/communication_labels/orders',
    service: 'command',
    summary: '活動ラベルの並び替え',
    body: LabelOrdersInput,
    response: z.array(CommunicationLabel),
    successStatus: 200,
    feature: 'communication_labels',
    ownerOnly: true,
    served: true,
  }),
  listMedicalInstitutionLabels: endpoint({
    id: 'labels.listMedicalInstitutionLabels',
    area: 'labels',
    method: 'GET',
    path: '/medical_institution_labels',
    service: 'query',
    summary: '医療機関ラベル一覧',
    response: z.array(MedicalInstitutionLabel),
    successStatus: 200,
    feature: 'medical_institution_labels',
    served: true,
  }),
  createMedicalInstitutionLabel: endpoint({
    id: 'labels.createMedicalInstitutionLabel',
    area: 'labels',
    method: 'POST',
    path: '/medical_institution_labels',
    service: 'command',
    summary: '医療機関ラベル作成',
    body: MedicalInstitutionLabelInput,
    response: MedicalInstitutionLabel,
    successStatus: 201,
    feature: 'medical_institution_labels',
    ownerOnly: true,
    served: true,
  }),
  updateMedicalInstitutionLabel: endpoint({
    id: 'labels.updateMedicalInstitutionLabel',
    area: 'labels',
    method: 'PUT',
    path: '/medical_institution_labels/{id}',
    service: 'command',
    summary: '医療機関ラベル更新',
    params: IdParams,
    body: MedicalInstitutionLabelInput,
    response: MedicalInstitutionLabel,
    successStatus: 200,
    feature: 'medical_institution_labels',
    ownerOnly: true,
    served: true,
  }),
  deleteMedicalInstitutionLabel: endpoint({
    id: 'labels.deleteMedicalInstitutionLabel',
    area: 'labels',
    method: 'DELETE',
    path: '/medical_institution_labels/{id}',
    service: 'command',
    summary: '医療機関ラベル削除',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    feature: 'medical_institution_labels',
    ownerOnly: true,
    served: true,
  }),
  orderMedicalInstitutionLabels: endpoint({
    id: 'labels.orderMedicalInstitutionLabels',
    area: 'labels',
    method: 'PUT',
    path: '/medical_institution_labels/orders',
    service: 'command',
    summary: '医療機関ラベルの並び替え',
    body: LabelOrdersInput,
    response: z.array(MedicalInstitutionLabel),
    successStatus: 200,
    feature: 'medical_institution_labels',
    ownerOnly: true,
    served: true,
  }),
};
