import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, IdParams, IsoDateTime, NoContent, PageQuery, paged, queryArray } from '../core/zod-helpers.ts';
import { MedicalInstitutionRef } from '../core/refs.ts';

export const Doctor = z.object({
  id: Id,
  medical_institution_id: Id,
  division: z.string(),
  position: z.string(),
  name: z.string(),
  honorific: z.string(),
  email: z.string().nullable(),
  phone_number: z.string().nullable(),
  profile: z.string(),
  memo: z.string(),
  updated_date: IsoDateTime,
  /** Stream revision; sent back as If-Match. */
  version: z.number().int(),
});
export type Doctor = z.infer<typeof Doctor>;

const optionalText = (max: number, label: string) =>
  z.string().trim().max(max, `${label}は${max}文字以内で入力してください`).default('');

export const DoctorInput = z.object({
  name: z.string().trim().min(1, '医師名を入力してください').max(50, '医師名は50文字以内で入力してください'),
  division: optionalText(50, '診療科・所属'),
  position: optionalText(50, '役職'),
  honorific: optionalText(10, '敬称').default('先生'),
  email: z
    .email('メールアドレスの形式が正しくありません')
    .max(254, 'メールアドレスは254文字以内で入力してください')
    .nullable()
    .default(null),
  phone_number: z
    .string()
    .trim()
    .regex(/^0\d{1,4}-?\d{1,4}-?\d{3,4}$/, '電話番号の形式が正しくありません（例: 03-1234-5678）')
    .nullable()
    .default(null),
  profile: optionalText(2000, 'プロフィール'),
  memo: optionalText(2000, 'メモ'),
});
export type DoctorInput = z.infer<typeof DoctorInput>;

export const DoctorParams = z.object({ medical_institution_id: Id, id: Id });

export const DoctorEmailDestination = z.object({
  id: Id,
  name: z.string(),
  honorific: z.string(),
  email: z.string(),
  division: z.string(),
  position: z.string(),
  medical_institution: MedicalInstitutionRef,
});
export type DoctorEmailDestination = z.infer<typeof DoctorEmailDestination>;

export const DoctorEmailDestinationQuery = PageQuery.extend({
  keyword: z.string().trim().max(100, 'キーワードは100文字以内で入力してください').optional(),
  medical_institution_ids: queryArray(Id).optional(),
});
export type DoctorEmailDestinationQuery = z.infer<typeof DoctorEmailDestinationQuery>;

const doc = { area: 'doctors', feature: 'medical_institutions_search', served: false } as const;

export const doctorEndpoints = {
  listDoctors: endpoint({
    ...doc,
    id: 'doctors.list',
    served: true,
    method: 'GET',
    path: '/medical_institutions/{id}/doctors',
    service: 'query',
    summary: '医療機関の医師一覧（所属・役職順）',
    params: IdParams,
    response: z.array(Doctor),
    successStatus: 200,
  }),
  createDoctor: endpoint({
    ...doc,
    id: 'doctors.create',
    served: true,
    method: 'POST',
    path: '/medical_institutions/{id}/doctors',
    service: 'command',
    summary: '医師の登録',
    params: IdParams,
    body: DoctorInput,
    response: Doctor,
    successStatus: 201,
  }),
  updateDoctor: endpoint({
    ...doc,
    id: 'doctors.update',
    served: true,
    method: 'PUT',
    path: '/medical_institutions/{medical_institution_id}/doctors/{id}',
    service: 'command',
    summary: '医師の更新',
    params: DoctorParams,
    body: DoctorInput,
    response: Doctor,
    successStatus: 200,
  }),
  deleteDoctor: endpoint({
    ...doc,
    id: 'doctors.delete',
    served: true,
    method: 'DELETE',
    path: '/medical_institutions/{medical_institution_id}/doctors/{id}',
    service: 'command',
    summary: '医師の削除',
    params: DoctorParams,
    response: NoContent,
    successStatus: 204,
  }),
  listEmailDestinations: endpoint({
    ...doc,
    id: 'doctors.listEmailDestinations',
    served: true,
    method: 'GET',
    path: '/doctors/email_destinations',
    service: 'query',
    summary: 'メール送信先にできる医師の一覧',
    query: DoctorEmailDestinationQuery,
    response: paged(DoctorEmailDestination),
    successStatus: 200,
    feature: 'emails',
  }),
};
