import type { FeatureKey, Role } from '@renkei/contracts';

/** GET /api/current_user as the spec (§3) describes it; only the fields the client holds are read. */
export interface CurrentUserResponse {
  id: string;
  username: string;
  email: string | null;
  login_name: string | null;
  role: Role;
  cs_account?: boolean | null;
  tenant: { id: string; name: string; logo?: string | null; [key: string]: unknown };
  features: FeatureKey[];
  own_department_id?: string | null;
  default_facility_type_ids?: string[] | null;
  email_sender_allowed_addresses?: string[] | null;
}

/** The signed-in account as the client holds it (spec §3). */
export interface SignedInUser {
  id: string;
  name: string;
  email: string;
  loginName: string;
  csAccount: boolean;
  tenant: { id: string; name: string; logo: string | null };
  role: Role;
  features: FeatureKey[];
  ownDepartmentId: string | null;
  defaultFacilityTypeIds: string[];
  emailSenderAllowedAddresses: string[];
}

export function toSignedInUser(r: CurrentUserResponse): SignedInUser {
  return {
    id: r.id,
    name: r.username,
    email: r.email ?? '',
    loginName: r.login_name ?? '',
    csAccount: r.cs_account ?? false,
    tenant: { id: r.tenant.id, name: r.tenant.name, logo: r.tenant.logo ?? null },
    role: r.role,
    features: r.features,
    ownDepartmentId: r.own_department_id ?? null,
    defaultFacilityTypeIds: r.default_facility_type_ids ?? [],
    emailSenderAllowedAddresses: r.email_sender_allowed_addresses ?? [],
  };
}
