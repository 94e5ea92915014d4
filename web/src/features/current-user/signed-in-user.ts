import type { CurrentUser, FeatureKey, Role } from '@renkei/contracts';

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

export function toSignedInUser(r: CurrentUser): SignedInUser {
  return {
    id: r.id,
    name: r.username,
    email: r.email ?? '',
    loginName: r.login_name ?? '',
    csAccount: r.cs_account,
    tenant: { id: r.tenant.id, name: r.tenant.name, logo: r.tenant.logo },
    role: r.role,
    features: r.features,
    ownDepartmentId: r.own_department_id,
    defaultFacilityTypeIds: r.default_facility_type_ids,
    emailSenderAllowedAddresses: r.email_sender_allowed_addresses,
  };
}
