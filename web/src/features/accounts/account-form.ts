import type { AccountInputValues } from './accounts.queries.ts';

export interface AccountFormValues {
  username: string;
  email: string;
  login_name: string;
  role: 'owner' | 'member';
  enabled_crm: boolean;
  enabled_mc_map: boolean;
  /** Only for an account without email, which no invitation can reach. */
  password: string;
}

/** What the form sends: an invitation has no password unless the account has no email. */
export function toAccountInput(values: AccountFormValues, creating: boolean): AccountInputValues {
  const email = values.email.trim();
  return {
    username: values.username,
    email: email || null,
    login_name: values.login_name.trim() || null,
    role: values.role,
    enabled_crm: values.enabled_crm,
    enabled_mc_map: values.enabled_mc_map,
    ...(creating && !email && values.password ? { password: values.password } : {}),
  };
}

export const emptyAccountForm: AccountFormValues = {
  username: '',
  email: '',
  login_name: '',
  role: 'member',
  enabled_crm: true,
  enabled_mc_map: false,
  password: '',
};
