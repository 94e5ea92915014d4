import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, PageQuery, paged, queryArray, inputDate } from '../core/zod-helpers.ts';

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
  hospital_admissions: z.array(HospitalAdmission),
  reverse_referral: z.object({ id: Id, reverse_referral_date: z.iso.date() }).nullable(),
});
export type Referral = z.infer<typeof Referral>;

const optionalName = (label: string) =>
  z.string().trim().max(50, `${label}は50文字以内で入力してください`).nullable().default(null);

/** A referral entered by hand (imports bring the rest). */
export const ReferralInput = z.object({
  referral_date: inputDate('紹介日はYYYY-MM-DD形式で入力してください'),
  patient_id: z.string().trim().min(1, '患者IDを入力してください').max(50, '患者IDは50文字以内で入力してください'),
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

export const ReverseReferralInput = z.object({
  reverse_referral_date: inputDate('逆紹介日はYYYY-MM-DD形式で入力してください'),
  patient_id: z.string().trim().min(1, '患者IDを入力してください').max(50, '患者IDは50文字以内で入力してください'),
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
});
export type SegmentationSetting = z.infer<typeof SegmentationSetting>;

const r = { area: 'referrals', served: false } as const;

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
    method: 'GET',
    path: '/segmentation_setting',
    service: 'query',
    summary: 'セグメント設定',
    response: SegmentationSetting,
    successStatus: 200,
    feature: null,
  }),
};
