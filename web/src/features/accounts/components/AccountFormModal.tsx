import { Checkbox, Modal, Radio, Group, Stack, Text, TextInput } from '@mantine/core';
import type { Account } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { emptyAccountForm, type AccountFormValues } from '../account-form.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

export interface AccountFormModalProps {
  opened: boolean;
  /** The account being edited; null when inviting. */
  account: Account | null;
  onClose: () => void;
  onSubmit: (values: AccountFormValues) => Promise<unknown>;
}

export function AccountFormModal({ opened, account, onClose, onSubmit }: AccountFormModalProps) {
  useReturnFocus(opened);
  const [values, setValues] = useState<AccountFormValues>(emptyAccountForm);
  const { errors, setErrors, saving, submit } = useFormSubmit({ values, save: onSubmit });

  useEffect(() => {
    if (!opened) return;
    setValues(
      account
        ? {
            username: account.username,
            email: account.email ?? '',
            login_name: account.login_name ?? '',
            role: account.role,
            enabled_crm: account.enabled_crm,
            enabled_mc_map: account.enabled_mc_map,
            password: '',
          }
        : emptyAccountForm,
    );
    setErrors({});
  }, [opened, account, setErrors]);

  const set = <K extends keyof AccountFormValues>(key: K, value: AccountFormValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));
  const inviting = !account;

  return (
    <Modal opened={opened} onClose={onClose} title={inviting ? 'アカウントを招待' : 'アカウントを編集'} centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="氏名"
            required
            value={values.username}
            onChange={(e) => set('username', e.currentTarget.value)}
            error={errors.username}
            data-autofocus
          />
          <TextInput
            label="メールアドレス"
            type="email"
            value={values.email}
            onChange={(e) => set('email', e.currentTarget.value)}
            error={errors.email ?? errors.base}
          />
          <TextInput
            label="ログインID"
            description="メールアドレスの代わりにログインに使えます（半角英数字と「._-」の3〜64文字）"
            value={values.login_name}
            onChange={(e) => set('login_name', e.currentTarget.value)}
            error={errors.login_name}
          />
          {inviting && !values.email.trim() && (
            <TextInput
              label="初期パスワード"
              type="password"
              description="メールアドレスがないと招待メールを送れないため、初期パスワードを本人に伝えてください"
              value={values.password}
              onChange={(e) => set('password', e.currentTarget.value)}
              error={errors.password}
              autoComplete="new-password"
            />
          )}
          <Radio.Group
            label="権限"
            value={values.role}
            onChange={(v) => set('role', v === 'owner' ? 'owner' : 'member')}
            error={errors.role}
          >
            <Group mt={4}>
              <Radio value="member" label="メンバー" />
              <Radio value="owner" label="オーナー" />
            </Group>
          </Radio.Group>
          <Checkbox
            label="CRMを利用する"
            description="オフにすると、コミュニケーション・タスク・アクションリスト・メール配信が使えなくなります（連携先の閲覧と分析は使えます）。"
            checked={values.enabled_crm}
            onChange={(e) => set('enabled_crm', e.currentTarget.checked)}
          />
          <Checkbox
            label="診療圏マップを利用する"
            description="診療圏マップ（別途契約の機能）の利用設定です。営業マップ・診療圏分析の地図には影響しません。"
            checked={values.enabled_mc_map}
            onChange={(e) => set('enabled_mc_map', e.currentTarget.checked)}
          />
          {inviting && values.email.trim() && (
            <Text size="sm" c="dimmed">
              保存すると、このメールアドレスに登録用のリンク（7日間有効）を送ります。本人がパスワードを設定すると登録が完了します。
            </Text>
          )}
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
