import { Modal, Stack, Text, TextInput } from '@mantine/core';
import { ActionListUpdateInput, type ActionList } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

export interface ActionListFormModalProps {
  opened: boolean;
  /** The list being renamed; null when creating. */
  actionList: ActionList | null;
  onClose: () => void;
  onSubmit: (values: { name: string }) => Promise<unknown>;
}

/** The contract's own check, so the messages are the server's. */
function validate(values: { name: string }): Record<string, string> {
  const parsed = ActionListUpdateInput.safeParse(values);
  if (parsed.success) return {};
  return Object.fromEntries(parsed.error.issues.map((i) => [String(i.path[0] ?? 'name'), i.message]));
}

export function ActionListFormModal({ opened, actionList, onClose, onSubmit }: ActionListFormModalProps) {
  useReturnFocus(opened);
  const [values, setValues] = useState({ name: '' });
  // The server's 422 messages go on their fields; other failures are handled by the caller.
  const { errors, setErrors, saving, submit } = useFormSubmit({ values, save: onSubmit, validate });

  useEffect(() => {
    if (!opened) return;
    setValues({ name: actionList?.name ?? '' });
    setErrors({});
  }, [opened, actionList, setErrors]);

  return (
    <Modal
      opened={opened}
      onClose={onClose}
      title={actionList ? 'アクションリスト名を変更' : 'アクションリストを作成'}
      centered
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="アクションリスト名"
            required
            maxLength={100}
            placeholder="例: 紹介減少先フォロー（11月）"
            value={values.name}
            onChange={(e) => setValues({ name: e.currentTarget.value })}
            error={errors.name}
            data-autofocus
          />
          {!actionList && (
            <Text size="xs" c="dimmed">
              作成後に医療機関名で検索して追加できます。パートナー検索の結果からまとめて追加することもできます。
            </Text>
          )}
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
