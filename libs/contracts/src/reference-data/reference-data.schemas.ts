import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { Id, PageQuery, paged } from '../core/zod-helpers.ts';
import { MasterCode } from '../core/refs.ts';

/** 診療科 of the public master (レセプト電算 診療科名コード where one exists). */
export const Department = z.object({ id: MasterCode, name: z.string() });
export type Department = z.infer<typeof Department>;

export const FacilityType = z.object({ id: MasterCode, name: z.string() });
export type FacilityType = z.infer<typeof FacilityType>;

export const FacilityTypeGroup = z.object({
  id: MasterCode,
  name: z.string(),
  facility_types: z.array(FacilityType),
});
export type FacilityTypeGroup = z.infer<typeof FacilityTypeGroup>;

/** 主要診断群: the 18 categories, ids `01`–`18`. */
export const Mdc = z.object({ id: MasterCode, name: z.string() });
export type Mdc = z.infer<typeof Mdc>;

/** 手術 K-code (診療報酬点数表 第10部), e.g. `K0461`. */
export const Kcode = z.object({ code: z.string(), name: z.string() });
export type Kcode = z.infer<typeof Kcode>;

export const KcodeQuery = PageQuery.extend({
  keyword: z.string().trim().max(100, 'キーワードは100文字以内で入力してください').optional(),
});
export type KcodeQuery = z.infer<typeof KcodeQuery>;

/** A department of the tenant's own hospital (set by owners), optionally mapped to the public master. */
export const OwnDepartment = z.object({
  id: Id,
  name: z.string(),
  department_id: MasterCode.nullable(),
  order: z.number().int(),
});
export type OwnDepartment = z.infer<typeof OwnDepartment>;

export const OwnDepartmentsInput = z.object({
  own_departments: z
    .array(
      z.object({
        /** Absent for a new department; an existing id keeps references (referrals, labels) intact. */
        id: Id.optional(),
        name: z.string().trim().min(1, '診療科名を入力してください').max(50, '診療科名は50文字以内で入力してください'),
        department_id: MasterCode.nullable().default(null),
      }),
    )
    .max(200, '診療科は200件まで登録できます'),
});
export type OwnDepartmentsInput = z.infer<typeof OwnDepartmentsInput>;

export const PhaseMaster = z.object({
  id: Id,
  name: z.string(),
  description: z.string(),
  order: z.number().int(),
});
export type PhaseMaster = z.infer<typeof PhaseMaster>;

/** The whole ordered list is replaced; a master left out is deleted (institutions in it lose their phase). */
export const PhaseMastersInput = z.object({
  phase_masters: z
    .array(
      z.object({
        id: Id.optional(),
        name: z
          .string()
          .trim()
          .min(1, 'フェーズ名を入力してください')
          .max(30, 'フェーズ名は30文字以内で入力してください'),
        description: z.string().max(200, '説明は200文字以内で入力してください').default(''),
      }),
    )
    .max(20, 'フェーズは20件まで登録できます'),
});
export type PhaseMastersInput = z.infer<typeof PhaseMastersInput>;

export const OwnMedicalInstitutionDepartments = z.array(OwnDepartment);
export const PhaseMasterList = z.array(PhaseMaster);

export const referenceDataEndpoints = {
  listMdcs: endpoint({
    id: 'referenceData.listMdcs',
    area: 'reference-data',
    method: 'GET',
    path: '/mdcs',
    service: 'query',
    summary: 'MDC（主要診断群）一覧',
    response: z.array(Mdc),
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listDepartments: endpoint({
    id: 'referenceData.listDepartments',
    area: 'reference-data',
    method: 'GET',
    path: '/departments',
    service: 'query',
    summary: '診療科マスタ一覧',
    response: z.array(Department),
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listFacilityTypeGroups: endpoint({
    id: 'referenceData.listFacilityTypeGroups',
    area: 'reference-data',
    method: 'GET',
    path: '/facility_type_groups',
    service: 'query',
    summary: '施設区分一覧',
    response: z.array(FacilityTypeGroup),
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listKcodes: endpoint({
    id: 'referenceData.listKcodes',
    area: 'reference-data',
    method: 'GET',
    path: '/kcodes',
    service: 'query',
    summary: 'Kコード（手術）検索',
    query: KcodeQuery,
    response: paged(Kcode),
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listOwnDepartments: endpoint({
    id: 'referenceData.listOwnDepartments',
    area: 'reference-data',
    method: 'GET',
    path: '/own_medical_institution/departments',
    service: 'query',
    summary: '自院の診療科一覧',
    response: OwnMedicalInstitutionDepartments,
    successStatus: 200,
    feature: null,
    served: true,
  }),
  replaceOwnDepartments: endpoint({
    id: 'referenceData.replaceOwnDepartments',
    area: 'reference-data',
    method: 'PUT',
    path: '/own_medical_institution/departments',
    service: 'command',
    summary: '自院の診療科の設定（独自追加）',
    body: OwnDepartmentsInput,
    response: OwnMedicalInstitutionDepartments,
    successStatus: 200,
    feature: null,
    ownerOnly: true,
    served: true,
  }),
  listPhaseMasters: endpoint({
    id: 'referenceData.listPhaseMasters',
    area: 'reference-data',
    method: 'GET',
    path: '/phase_masters',
    service: 'query',
    summary: 'フェーズマスタ一覧（独自追加）',
    response: PhaseMasterList,
    successStatus: 200,
    feature: null,
    served: true,
  }),
  replacePhaseMasters: endpoint({
    id: 'referenceData.replacePhaseMasters',
    area: 'reference-data',
    method: 'PUT',
    path: '/phase_masters',
    service: 'command',
    summary: 'フェーズマスタの設定',
    body: PhaseMastersInput,
    response: PhaseMasterList,
    successStatus: 200,
    feature: null,
    ownerOnly: true,
    served: true,
  }),
};
