import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { CsvEncoding } from '../core/refs.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged, queryArray, inputDate } from '../core/zod-helpers.ts';

/** One hospital stay that followed a referral (from the DPC files; domain research §1.7). */
export const HospitalAdmission = z.object({
  id: Id,
  admission_date: z.iso.date(),
  discharge_date: z.iso.date().nullable(),
  department: z.string().nullable(),
  icd10_code: z.string().nullable(),
  icd10_name: z.string().nullable(),
  kcode: z.string().nullable(),
  operation_name: z.string().nullable(),
  operation_date: z.iso.date().nullable(),
  dpc_code: z.string().nullable(),
  dpc_name: z.string().nullable(),
  /** Scores of 様式1 (JCS, ADL, Barthel …) by name. */
  scores: z.record(z.string(), z.number().nullable()),
  anesthesia_type: z.string().nullable(),
  admission_route_code: z.string().nullable(),
  discharge_destination_code: z.string().nullable(),
  discharge_outcome_code: z.string().nullable(),
});
export type HospitalAdmission = z.infer<typeof HospitalAdmission>;

export const Referral = z.object({
  id: Id,
  referral_date: z.iso.date(),
  patient_id: z.string(),
  doctor_name_to: z.string().nullable(),
  doctor_name_from: z.string().nullable(),
  reason_for_presenting: z.string().nullable(),
  referral_department: z.object({ id: Id, name: z.string() }).nullable(),
  /**
   * Addition: 紹介先診療科 as the list wrote it, when it is none of the own departments (then
   * referral_department is null), so the page can still say where the patient went; null otherwise.
   */
  referral_department_as_written: z.string().nullable(),
  hospital_admissions: z.array(HospitalAdmission),
  reverse_referral: z.object({ id: Id, reverse_referral_date: z.iso.date() }).nullable(),
  /** Addition: entered by hand on the referral page (editable there); imported rows are read-only. */
  entered_by_hand: z.boolean(),
});
export type Referral = z.infer<typeof Referral>;

const optionalName = (label: string) =>
  z.string().trim().max(50, `${label}は50文字以内で入力してください`).nullable().default(null);

/** A referral entered by hand (imports bring the rest). */
export const ReferralInput = z.object({
  referral_date: inputDate('紹介日はYYYY-MM-DD形式で入力してください'),
  patient_id: z
    .string('患者IDを入力してください')
    .trim()
    .min(1, '患者IDを入力してください')
    .max(50, '患者IDは50文字以内で入力してください'),
  doctor_name_to: optionalName('紹介先医師名'),
  doctor_name_from: optionalName('紹介元医師名'),
  reason_for_presenting: z.string().max(500, '紹介理由は500文字以内で入力してください').nullable().default(null),
  /** Own department the patient was referred to. */
  own_department_id: Id.nullable().default(null),
});
export type ReferralInput = z.infer<typeof ReferralInput>;

export const ReverseReferral = z.object({
  id: Id,
  medical_institution_id_from: Id.nullable(),
  medical_institution_id_to: Id,
  /** The own department the patient is sent back from. */
  specialty_id: Id.nullable(),
  reverse_referral_date: z.iso.date(),
  patient_id: z.string(),
  control_id: z.string().nullable(),
  importing_log_id: Id.nullable(),
});
export type ReverseReferral = z.infer<typeof ReverseReferral>;

/**
 * Addition: a reverse referral as the institution's referral page lists it: the department's name,
 * and whether it was entered by hand (then editable there; imported rows belong to their files).
 */
export const ListedReverseReferral = ReverseReferral.extend({
  specialty: z.object({ id: Id, name: z.string() }).nullable(),
  entered_by_hand: z.boolean(),
});
export type ListedReverseReferral = z.infer<typeof ListedReverseReferral>;

export const ReverseReferralInput = z.object({
  reverse_referral_date: inputDate('逆紹介日はYYYY-MM-DD形式で入力してください'),
  patient_id: z
    .string('患者IDを入力してください')
    .trim()
    .min(1, '患者IDを入力してください')
    .max(50, '患者IDは50文字以内で入力してください'),
  specialty_id: Id.nullable().default(null),
});
export type ReverseReferralInput = z.infer<typeof ReverseReferralInput>;

/** The first or last referral from an institution (spec §3). */
export const ReferralMark = z.object({
  id: Id,
  referral_date: z.iso.date(),
  medical_institution_id: Id,
  medical_institution_id_to: Id.nullable(),
  first_visit_flag: z.boolean(),
});
export type ReferralMark = z.infer<typeof ReferralMark>;

export const ReverseReferralMark = z.object({
  id: Id,
  reverse_referral_date: z.iso.date(),
  medical_institution_id_to: Id,
});

export const ReferralMarkQuery = z.object({
  medical_institution_ids: queryArray(Id).pipe(z.array(Id).max(1000, '医療機関は1000件まで指定できます')),
  own_department_ids: queryArray(Id).optional(),
});

export const ReferralAdmissionSegment = z.object({
  id: Id,
  name: z.string(),
  referral_count_min: z.number().int().nullable(),
  referral_count_max: z.number().int().nullable(),
  admission_rate_min: z.number().nullable(),
  admission_rate_max: z.number().nullable(),
});
export type ReferralAdmissionSegment = z.infer<typeof ReferralAdmissionSegment>;

/** Params of one referral or reverse referral entered by hand (addition). */
export const ReferralEntryParams = z.object({ medical_institution_id: Id, id: Id });

export const SegmentationSetting = z.object({
  id: Id,
  rest_segment_label: z.string(),
  excluded_own_department_ids: z.array(Id),
  segments: z.array(
    z.object({
      id: Id,
      label: z.string(),
      priority: z.number().int(),
      referral_count_more_equal: z.number().int().nullable(),
      referral_admission_rate_more_equal: z.number().nullable(),
    }),
  ),
  updated_at: IsoDateTime.nullable(),
  /**
   * Addition: the version a save sends back as If-Match (the ETag's value; null before the first
   * save), so the settings card can say another owner saved first (409) instead of overwriting.
   */
  version: z.number().int().nullable(),
});
export type SegmentationSetting = z.infer<typeof SegmentationSetting>;

const segmentLabel = (what: string) =>
  z.string().trim().min(1, `${what}を入力してください`).max(30, `${what}は30文字以内で入力してください`);

/**
 * Addition: what an owner saves on the settings screen. A segment is matched in `priority` order
 * (smaller first); an institution takes the first whose bounds it reaches. The rate is a percent.
 */
export const SegmentationSettingInput = z
  .object({
    rest_segment_label: segmentLabel('その他のセグメント名'),
    excluded_own_department_ids: z.array(Id).max(200, '除外する診療科は200件まで指定できます'),
    segments: z
      .array(
        z.object({
          /** null: a new segment (the server gives it an id). */
          id: Id.nullable().default(null),
          label: segmentLabel('セグメント名'),
          priority: z
            .number()
            .int('優先順位は整数で入力してください')
            .min(1, '優先順位は1以上で入力してください')
            .max(1000, '優先順位は1000以下で入力してください'),
          referral_count_more_equal: z
            .number()
            .int('紹介件数は整数で入力してください')
            .min(0, '紹介件数は0以上で入力してください')
            .max(1_000_000, '紹介件数は1000000以下で入力してください')
            .nullable(),
          referral_admission_rate_more_equal: z
            .number()
            .min(0, '入院率は0以上で入力してください')
            .max(100, '入院率は100以下で入力してください')
            .nullable(),
        }),
      )
      .max(20, 'セグメントは20件まで設定できます'),
  })
  .superRefine((v, ctx) => {
    const seen = new Map<string, number>();
    v.segments.forEach((s, i) => {
      const first = seen.get(s.label);
      if (first !== undefined)
        ctx.addIssue({ code: 'custom', path: ['segments', i, 'label'], message: 'セグメント名が重複しています' });
      else seen.set(s.label, i);
      if (s.label === v.rest_segment_label)
        ctx.addIssue({
          code: 'custom',
          path: ['segments', i, 'label'],
          message: 'その他のセグメント名と同じ名前は使えません',
        });
    });
    const priorities = new Set<number>();
    v.segments.forEach((s, i) => {
      if (priorities.has(s.priority))
        ctx.addIssue({ code: 'custom', path: ['segments', i, 'priority'], message: '優先順位が重複しています' });
      priorities.add(s.priority);
    });
  });
export type SegmentationSettingInput = z.infer<typeof SegmentationSettingInput>;

/** Addition: the tenant field `max_referral_hospital_admission_period` (spec §3), in days, as owners set it. */
export const ReferralAdmissionPeriod = z.object({
  max_referral_hospital_admission_period: z.number().int(),
  updated_at: IsoDateTime.nullable(),
});
export type ReferralAdmissionPeriod = z.infer<typeof ReferralAdmissionPeriod>;

export const ReferralAdmissionPeriodInput = z.object({
  max_referral_hospital_admission_period: z
    .number('入院期間を入力してください')
    .int('入院期間は整数で入力してください')
    .min(1, '入院期間は1日以上で入力してください')
    .max(365, '入院期間は365日以下で入力してください'),
});
export type ReferralAdmissionPeriodInput = z.infer<typeof ReferralAdmissionPeriodInput>;

const r = { area: 'referrals', served: false } as const;

export const ReferralExportQuery = z.object({ encoding: CsvEncoding.default('utf-8') });
export type ReferralExportQuery = z.infer<typeof ReferralExportQuery>;

export const referralEndpoints = {
  listMedicalInstitutionReferrals: endpoint({
    ...r,
    id: 'referrals.listForMedicalInstitution',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/referrals',
    service: 'query',
    summary: '医療機関からの紹介一覧',
    params: IdParams,
    query: PageQuery,
    response: paged(Referral),
    successStatus: 200,
    // Patient-level rows: not for the vendor's support account (docs/decisions.md "Roles").
    csAccount: 'denied',
    feature: 'medical_institutions_search',
  }),
  exportMedicalInstitutionReferrals: endpoint({
    ...r,
    id: 'referrals.exportForMedicalInstitution',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/referrals/export',
    service: 'query',
    summary: '医療機関からの紹介一覧のCSV出力（入院1件につき1行）（独自追加）',
    params: IdParams,
    query: ReferralExportQuery,
    response: z.string(),
    successStatus: 200,
    download: true,
    // The list's rows, so the list's audience (docs/decisions.md "Roles").
    csAccount: 'denied',
    feature: 'medical_institutions_search',
  }),
  createMedicalInstitutionReferral: endpoint({
    ...r,
    id: 'referrals.createForMedicalInstitution',
    served: true,
    method: 'POST',
    path: '/medical_institutions/{id}/referrals',
    service: 'command',
    summary: '紹介の手入力登録',
    params: IdParams,
    body: ReferralInput,
    response: Referral,
    successStatus: 201,
    feature: 'medical_institutions_search',
  }),
  listMedicalInstitutionReverseReferrals: endpoint({
    ...r,
    id: 'referrals.listReverseForMedicalInstitution',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/reverse_referrals',
    service: 'query',
    summary: '医療機関への逆紹介一覧（独自追加）',
    params: IdParams,
    query: PageQuery,
    response: paged(ListedReverseReferral),
    successStatus: 200,
    // Patient-level rows, like the referral list: not for the vendor's support account.
    csAccount: 'denied',
    feature: 'reverse_referrals',
  }),
  createMedicalInstitutionReverseReferral: endpoint({
    ...r,
    id: 'referrals.createReverseForMedicalInstitution',
    served: true,
    method: 'POST',
    path: '/medical_institutions/{id}/reverse_referrals',
    service: 'command',
    summary: '逆紹介の手入力登録',
    params: IdParams,
    body: ReverseReferralInput,
    response: ReverseReferral,
    successStatus: 201,
    feature: 'reverse_referrals',
  }),
  firstReferrals: endpoint({
    ...r,
    id: 'referrals.first',
    served: true,
    method: 'GET',
    path: '/referrals/first',
    service: 'query',
    summary: '医療機関ごとの初回紹介',
    query: ReferralMarkQuery,
    response: z.array(ReferralMark),
    successStatus: 200,
    feature: null,
  }),
  lastReferrals: endpoint({
    ...r,
    id: 'referrals.last',
    served: true,
    method: 'GET',
    path: '/referrals/last',
    service: 'query',
    summary: '医療機関ごとの最終紹介',
    query: ReferralMarkQuery,
    response: z.array(ReferralMark),
    successStatus: 200,
    feature: null,
  }),
  referralAdmissionSegments: endpoint({
    ...r,
    id: 'referrals.admissionSegments',
    served: true,
    method: 'GET',
    path: '/referral_admission_segments',
    service: 'query',
    summary: '紹介入院セグメント一覧',
    response: z.array(ReferralAdmissionSegment),
    successStatus: 200,
    feature: null,
  }),
  lastReverseReferrals: endpoint({
    ...r,
    id: 'referrals.lastReverse',
    served: true,
    method: 'GET',
    path: '/reverse_referrals/last',
    service: 'query',
    summary: '医療機関ごとの最終逆紹介',
    query: ReferralMarkQuery,
    response: z.array(ReverseReferralMark),
    successStatus: 200,
    feature: 'reverse_referrals',
  }),
  segmentationSetting: endpoint({
    ...r,
    id: 'referrals.segmentationSetting',
    served: true,
    method: 'GET',
    path: '/segmentation_setting',
    service: 'query',
    summary: 'セグメント設定',
    response: SegmentationSetting,
    successStatus: 200,
    feature: null,
  }),
  updateSegmentationSetting: endpoint({
    ...r,
    id: 'referrals.updateSegmentationSetting',
    served: true,
    method: 'PUT',
    path: '/segmentation_setting',
    service: 'command',
    summary: 'セグメント設定の更新（独自追加）',
    body: SegmentationSettingInput,
    response: SegmentationSetting,
    successStatus: 200,
    feature: null,
    ownerOnly: true,
  }),
  referralAdmissionPeriod: endpoint({
    ...r,
    id: 'referrals.admissionPeriod',
    served: true,
    method: 'GET',
    path: '/referral_admission_period',
    service: 'query',
    summary: '紹介後の入院とみなす期間（独自追加）',
    response: ReferralAdmissionPeriod,
    successStatus: 200,
    feature: null,
  }),
  updateReferralAdmissionPeriod: endpoint({
    ...r,
    id: 'referrals.updateAdmissionPeriod',
    served: true,
    method: 'PUT',
    path: '/referral_admission_period',
    service: 'command',
    summary: '紹介後の入院とみなす期間の更新（独自追加）',
    body: ReferralAdmissionPeriodInput,
    response: ReferralAdmissionPeriod,
    successStatus: 200,
    feature: null,
    ownerOnly: true,
  }),
  updateMedicalInstitutionReferral: endpoint({
    ...r,
    id: 'referrals.updateForMedicalInstitution',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{medical_institution_id}/referrals/{id}',
    service: 'command',
    summary: '手入力した紹介の修正（独自追加）',
    params: ReferralEntryParams,
    body: ReferralInput,
    response: Referral,
    successStatus: 200,
    feature: 'medical_institutions_search',
  }),
  deleteMedicalInstitutionReferral: endpoint({
    ...r,
    id: 'referrals.deleteForMedicalInstitution',
    served: true,
    method: 'DELETE',
    path: '/medical_institutions/{medical_institution_id}/referrals/{id}',
    service: 'command',
    summary: '手入力した紹介の削除（独自追加）',
    params: ReferralEntryParams,
    response: NoContent,
    successStatus: 204,
    feature: 'medical_institutions_search',
  }),
  updateMedicalInstitutionReverseReferral: endpoint({
    ...r,
    id: 'referrals.updateReverseForMedicalInstitution',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{medical_institution_id}/reverse_referrals/{id}',
    service: 'command',
    summary: '手入力した逆紹介の修正（独自追加）',
    params: ReferralEntryParams,
    body: ReverseReferralInput,
    response: ReverseReferral,
    successStatus: 200,
    feature: 'reverse_referrals',
  }),
  deleteMedicalInstitutionReverseReferral: endpoint({
    ...r,
    id: 'referrals.deleteReverseForMedicalInstitution',
    served: true,
    method: 'DELETE',
    path: '/medical_institutions/{medical_institution_id}/reverse_referrals/{id}',
    service: 'command',
    summary: '手入力した逆紹介の削除（独自追加）',
    params: ReferralEntryParams,
    response: NoContent,
    successStatus: 204,
    feature: 'reverse_referrals',
  }),
};
