import { z } from 'zod';
import { endpoint } from '../core/endpoint.ts';
import { prefectureNames } from '../core/prefectures.ts';
import { FeatureKey, Plan, Role } from '../core/features.ts';
import { Id, IdParams, NoContent, PageQuery, paged, queryBoolean } from '../core/zod-helpers.ts';

export { prefectureNames };

/** Largest logo accepted, decoded (the JSON body carrying it in base64 stays under the 1 MiB limit). */
export const maxLogoBytes = 512 * 1024;

/** The logo upload: the image file's bytes in base64. Its type is read from the bytes, not declared. */
export const TenantLogoInput = z.object({
  data: z
    .string()
    .min(1, 'ロゴ画像を選んでください')
    .max(Math.ceil((maxLogoBytes * 4) / 3) + 4, `ロゴ画像は${maxLogoBytes / 1024}KB以下にしてください`)
    .regex(/^[A-Za-z0-9+/]+={0,2}$/, 'ロゴ画像のデータが正しくありません'),
});
export type TenantLogoInput = z.infer<typeof TenantLogoInput>;

export const GroupMedicalInstitution = z.object({ id: z.string(), name: z.string() });

/** The tenant as the signed-in user sees it (spec §3 "Current user"). */
export const CurrentUserTenant = z.object({
  id: Id,
  name: z.string(),
  logo: z.string().nullable(),
  medical_institution_id: z.string().nullable(),
  prefecture: z.string().nullable(),
  longitude: z.number().nullable(),
  latitude: z.number().nullable(),
  demo: z.boolean(),
  plan: Plan,
  enabled_mc_map: z.boolean(),
  enabled_op_optimizer: z.boolean(),
  max_account_count: z.number().int().nullable(),
  max_tag_count: z.number().int().nullable(),
  group_medical_institutions: z.array(GroupMedicalInstitution),
  enabled_phase: z.boolean(),
  /** Kinds of data the tenant has imported (import types of spec §4). */
  data_availabilities: z.array(z.string()),
  enabled_additional_referral_data: z.boolean(),
  enabled_medical_institution_ai: z.boolean(),
  enabled_audio_transcription: z.boolean(),
  /** Months of referral history used for hospital-admission analysis; null = no limit. */
  max_referral_hospital_admission_period: z.number().int().nullable(),
  is_group: z.boolean(),
});
export type CurrentUserTenant = z.infer<typeof CurrentUserTenant>;

/** An account as the accounts screen lists it (spec §3 "User account"). */
export const Account = z.object({
  id: Id,
  username: z.string(),
  email: z.string().nullable(),
  login_name: z.string().nullable(),
  role: Role,
  last_login_date: z.string().nullable(),
  is_confirmed: z.boolean(),
  enabled_crm: z.boolean(),
  enabled_mc_map: z.boolean(),
  cs_account: z.boolean(),
});
export type Account = z.infer<typeof Account>;

/** The signed-in account: the account itself plus its tenant and what it may use. */
export const CurrentUser = Account.extend({
  tenant: CurrentUserTenant,
  features: z.array(FeatureKey),
  own_department_id: z.string().nullable(),
  default_facility_type_ids: z.array(z.string()),
  email_sender_allowed_addresses: z.array(z.string()),
});
export type CurrentUser = z.infer<typeof CurrentUser>;

export const NotificationSettings = z.object({
  enabled_notification: z.boolean(),
  enabled_communication_reactions_summary: z.boolean(),
  enabled_alerts_summary: z.boolean(),
  enabled_medical_institution_report_alert: z.boolean(),
});
export type NotificationSettings = z.infer<typeof NotificationSettings>;

export const Profile = z.object({
  username: z.string(),
  notification_settings: NotificationSettings,
  /**
   * Addition (spec §7 names username and notification_settings only): the account's own department, one of
   * GET /own_medical_institution/departments. A department since removed from that list reads as null.
   */
  own_department_id: z.string().nullable(),
});
export type Profile = z.infer<typeof Profile>;

export const ProfileInput = z.object({
  username: z.string().trim().min(1, '氏名を入力してください').max(50, '氏名は50文字以内で入力してください'),
  notification_settings: NotificationSettings,
  /** Addition: null clears it; left out, the stored value stays (clients written before it existed). */
  own_department_id: z.string().uuid('所属診療科を一覧から選んでください').nullable().optional(),
});
export type ProfileInput = z.infer<typeof ProfileInput>;

export const Staff = z.object({ id: Id, name: z.string(), cs_account: z.boolean() });
export type Staff = z.infer<typeof Staff>;

export const StaffListQuery = z.object({
  include_cs_accounts: queryBoolean.default(false),
  include_inactive: queryBoolean.default(false),
});

const optionalEmail = z
  .string()
  .trim()
  .email('メールアドレスの形式が正しくありません')
  .nullable()
  .optional()
  .or(z.literal('').transform(() => null));
const optionalLoginName = z
  .string()
  .trim()
  .regex(/^[A-Za-z0-9._-]{3,64}$/, 'ログインIDは半角英数字と「._-」の3〜64文字で入力してください')
  .nullable()
  .optional()
  .or(z.literal('').transform(() => null));

/**
 * Longer passphrases than this add nothing, and every sign-in hashes what is sent: an unbounded length
 * would let one request hold a CPU.
 */
export const maxPasswordLength = 128;
const tooLongPassword = `パスワードは${maxPasswordLength}文字以内で入力してください`;

export const AccountInput = z.object({
  username: z.string().trim().min(1, '氏名を入力してください').max(50, '氏名は50文字以内で入力してください'),
  email: optionalEmail,
  login_name: optionalLoginName,
  role: Role.default('member'),
  /**
   * Without it the account is invited: a sign-up mail goes to its email and the person sets their own
   * password (the owner never knows it). A login-name-only account has no mailbox and needs one.
   */
  password: z
    .string()
    .min(8, 'パスワードは8文字以上で入力してください')
    .max(maxPasswordLength, tooLongPassword)
    .optional(),
  enabled_crm: z.boolean().default(true),
  enabled_mc_map: z.boolean().default(false),
});
export type AccountInput = z.infer<typeof AccountInput>;

/** The tenant's settings as the vendor's support account edits them (`/tenant_setting`, addition). */
export const TenantSetting = z.object({
  name: z.string(),
  plan: Plan,
  /** What the tenant can use: the plan's features with the overrides applied. */
  features: z.array(FeatureKey),
  /** Features the plan gives that are switched off for this tenant. */
  features_off: z.array(FeatureKey),
  medical_institution: GroupMedicalInstitution.nullable(),
  group_medical_institutions: z.array(GroupMedicalInstitution),
  is_group: z.boolean(),
  enabled_phase: z.boolean(),
  max_account_count: z.number().int().nullable(),
  max_tag_count: z.number().int().nullable(),
  email_sender_allowed_addresses: z.array(z.string()),
  ip_allow_list: z.array(z.string()),
  /** The address this request came from, as the allow-list sees it. */
  client_ip: z.string(),
  /** Where the tenant's maps open (spec §3 tenant fields). */
  prefecture: z.string().nullable(),
  latitude: z.number().nullable(),
  longitude: z.number().nullable(),
  /** Path of the logo under /api (`GET /tenant_logo`, with a version query), or null. */
  logo: z.string().nullable(),
});
export type TenantSetting = z.infer<typeof TenantSetting>;

const optionalLimit = (label: string) =>
  z
    .number()
    .int(`${label}は整数で入力してください`)
    .min(1, `${label}は1以上で入力してください`)
    .max(100000, `${label}は100000以下で入力してください`)
    .nullable();

export const TenantSettingInput = z
  .object({
    name: z
      .string()
      .trim()
      .min(1, 'テナント名を入力してください')
      .max(100, 'テナント名は100文字以内で入力してください'),
    plan: Plan,
    features_off: z.array(FeatureKey).max(50),
    medical_institution_id: Id.nullable(),
    group_medical_institution_ids: z.array(Id).max(100, 'グループ医療機関は100件まで設定できます'),
    is_group: z.boolean(),
    enabled_phase: z.boolean(),
    max_account_count: optionalLimit('アカウント数の上限'),
    max_tag_count: optionalLimit('タグ数の上限'),
    email_sender_allowed_addresses: z
      .array(z.string().trim().email('メールアドレスの形式が正しくありません'))
      .max(50, '送信元メールアドレスは50件まで設定できます'),
    /** CIDR ranges (IPv4 or IPv6); empty = every address. Checked by the service. */
    ip_allow_list: z
      .array(z.string().trim().min(1, 'IPアドレスを入力してください').max(60, 'IPアドレスの形式が正しくありません'))
      .max(100, 'IPアドレスは100件まで設定できます'),
    /** Saving a list that shuts out the saving request's own address needs this (the screen asks first). */
    confirm_ip_exclusion: z.boolean().default(false),
    /** Absent: unchanged (clients written before these fields keep working). */
    prefecture: z.enum(prefectureNames, { error: '都道府県を選んでください' }).nullable().optional(),
    latitude: z
      .number({ error: '緯度は数値で入力してください' })
      .min(20, '緯度は20〜46の範囲で入力してください')
      .max(46, '緯度は20〜46の範囲で入力してください')
      .nullable()
      .optional(),
    longitude: z
      .number({ error: '経度は数値で入力してください' })
      .min(122, '経度は122〜154の範囲で入力してください')
      .max(154, '経度は122〜154の範囲で入力してください')
      .nullable()
      .optional(),
  })
  .refine(
    (v) =>
      (v.latitude === undefined) === (v.longitude === undefined) && (v.latitude === null) === (v.longitude === null),
    {
      path: ['latitude'],
      message: '地図の中心は緯度と経度を両方入力してください',
    },
  );
export type TenantSettingInput = z.infer<typeof TenantSettingInput>;

/** The sub_code of the 422 that asks to confirm an allow-list shutting out the caller's address. */
export const ipSelfExclusionSubCode = 'IP_SELF_EXCLUDED';

export const TenantSettingChange = z.object({
  changed_at: z.string(),
  changed_by: z.string().nullable(),
  changes: z.array(z.object({ field: z.string(), before: z.string(), after: z.string() })),
});
export type TenantSettingChange = z.infer<typeof TenantSettingChange>;

export const identityEndpoints = {
  getCurrentUser: endpoint({
    id: 'identity.getCurrentUser',
    area: 'current user',
    method: 'GET',
    path: '/current_user',
    service: 'identity',
    summary: 'ログイン中のユーザー',
    response: CurrentUser,
    successStatus: 200,
    feature: null,
    served: true,
  }),
  getProfile: endpoint({
    id: 'identity.getProfile',
    area: 'current user',
    method: 'GET',
    path: '/users/me/profile',
    service: 'identity',
    summary: 'プロフィール',
    response: Profile,
    successStatus: 200,
    feature: null,
    served: true,
  }),
  updateProfile: endpoint({
    id: 'identity.updateProfile',
    area: 'current user',
    method: 'PUT',
    path: '/users/me/profile',
    service: 'identity',
    summary: 'プロフィール更新',
    body: ProfileInput,
    response: Profile,
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listStaffs: endpoint({
    id: 'identity.listStaffs',
    area: 'current user',
    method: 'GET',
    path: '/staffs',
    service: 'identity',
    summary: '担当者一覧',
    query: StaffListQuery,
    response: z.array(Staff),
    successStatus: 200,
    feature: null,
    served: true,
  }),
  listAccounts: endpoint({
    id: 'accounts.listAccounts',
    area: 'accounts',
    method: 'GET',
    path: '/accounts',
    service: 'identity',
    summary: 'アカウント一覧',
    query: PageQuery,
    response: paged(Account),
    successStatus: 200,
    feature: 'accounts',
    served: true,
  }),
  createAccount: endpoint({
    id: 'accounts.createAccount',
    area: 'accounts',
    method: 'POST',
    path: '/accounts',
    service: 'identity',
    summary: 'アカウント作成',
    body: AccountInput,
    response: Account,
    successStatus: 201,
    feature: 'accounts',
    ownerOnly: true,
    served: true,
  }),
  updateAccount: endpoint({
    id: 'accounts.updateAccount',
    area: 'accounts',
    method: 'PUT',
    path: '/accounts/{id}',
    service: 'identity',
    summary: 'アカウント更新',
    params: IdParams,
    // An update leaves the password as it is unless one is given.
    body: AccountInput,
    response: Account,
    successStatus: 200,
    feature: 'accounts',
    ownerOnly: true,
    served: true,
  }),
  deleteAccount: endpoint({
    id: 'accounts.deleteAccount',
    area: 'accounts',
    method: 'DELETE',
    path: '/accounts/{id}',
    service: 'identity',
    summary: 'アカウント削除（無効化）',
    params: IdParams,
    response: NoContent,
    successStatus: 204,
    feature: 'accounts',
    ownerOnly: true,
    served: true,
  }),
  /** Addition (not in spec §7): a new sign-up mail for an account that has not set its password yet. */
  resendInvitation: endpoint({
    id: 'accounts.resendInvitation',
    area: 'accounts',
    method: 'POST',
    path: '/accounts/{id}/invitation',
    service: 'identity',
    summary: '招待メールの再送（独自追加）',
    params: IdParams,
    response: Account,
    successStatus: 200,
    feature: 'accounts',
    ownerOnly: true,
    served: true,
  }),
  /** Addition (spec §2 names the screen, §7 no call): only the vendor's support account. */
  getTenantSetting: endpoint({
    id: 'tenantSettings.get',
    area: 'tenant settings',
    method: 'GET',
    path: '/tenant_setting',
    service: 'identity',
    summary: 'テナント設定（独自追加）',
    response: TenantSetting,
    successStatus: 200,
    feature: null,
    csAccount: 'only',
    served: true,
  }),
  updateTenantSetting: endpoint({
    id: 'tenantSettings.update',
    area: 'tenant settings',
    method: 'PUT',
    path: '/tenant_setting',
    service: 'identity',
    summary: 'テナント設定の更新（独自追加）',
    body: TenantSettingInput,
    response: TenantSetting,
    successStatus: 200,
    feature: null,
    csAccount: 'only',
    served: true,
  }),
  /** Addition: the tenant's logo (PNG, JPEG, GIF or WebP), shown in the header. */
  updateTenantLogo: endpoint({
    id: 'tenantSettings.updateLogo',
    area: 'tenant settings',
    method: 'PUT',
    path: '/tenant_setting/logo',
    service: 'identity',
    summary: 'テナントロゴの登録（独自追加）',
    body: TenantLogoInput,
    response: TenantSetting,
    successStatus: 200,
    feature: null,
    csAccount: 'only',
    served: true,
  }),
  deleteTenantLogo: endpoint({
    id: 'tenantSettings.deleteLogo',
    area: 'tenant settings',
    method: 'DELETE',
    path: '/tenant_setting/logo',
    service: 'identity',
    summary: 'テナントロゴの削除（独自追加）',
    response: NoContent,
    successStatus: 204,
    feature: null,
    csAccount: 'only',
    served: true,
  }),
  /** Addition: the logo's image, to the signed-in users of its tenant only. */
  getTenantLogo: endpoint({
    id: 'identity.getTenantLogo',
    area: 'current user',
    method: 'GET',
    path: '/tenant_logo',
    service: 'identity',
    summary: 'テナントロゴ画像（独自追加）',
    query: z.object({ v: z.string().max(64).optional() }),
    response: z.string(),
    successStatus: 200,
    feature: null,
    download: 'image',
    served: true,
  }),
  listTenantSettingHistories: endpoint({
    id: 'tenantSettings.histories',
    area: 'tenant settings',
    method: 'GET',
    path: '/tenant_setting/histories',
    service: 'identity',
    summary: 'テナント設定の変更履歴（独自追加）',
    query: PageQuery,
    response: paged(TenantSettingChange),
    successStatus: 200,
    feature: null,
    csAccount: 'only',
    served: true,
  }),
};
