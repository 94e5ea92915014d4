import { Autocomplete, Modal, Stack, TextInput, Textarea } from '@mantine/core';
import type { Tag } from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

export interface TagFormValues {
  name: string;
  description: string;
  group_name: string;
}

export interface TagFormModalProps {
  opened: boolean;
  /** The tag being edited; null when creating. */
  tag: Tag | null;
  groupNames: string[];
  onClose: () => void;
  onSubmit: (values: TagFormValues) => Promise<unknown>;
}

export function TagFormModal({ opened, tag, groupNames, onClose, onSubmit }: TagFormModalProps) {
  useReturnFocus(opened);
  const [values, setValues] = useState<TagFormValues>({ name: '', description: '', group_name: '' });
  // The server's 422 messages go on their fields; other failures are handled by the caller.
  const { errors, setErrors, saving, submit } = useFormSubmit({ values, save: onSubmit });

  useEffect(() => {
    if (!opened) return;
    setValues({ name: tag?.name ?? '', description: tag?.description ?? '', group_name: tag?.group_name ?? '' });
    setErrors({});
  }, [opened, tag, setErrors]);

  const set = (key: keyof TagFormValues) => (value: string) => setValues((v) => ({ ...v, [key]: value }));

  return (
    <Modal opened={opened} onClose={onClose} title={tag ? 'タグを編集' : 'タグを作成'} centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="タグ名"
            required
            value={values.name}
            onChange={(e) => set('name')(e.currentTarget.value)}
            error={errors.name}
            data-autofocus
          />
          <Textarea
            label="説明"
            autosize
            minRows={2}
            value={values.description}
            onChange={(e) => set('description')(e.currentTarget.value)}
            error={errors.description}
          />
          <Autocomplete
            label="グループ"
            placeholder="グループなし"
            data={groupNames}
            value={values.group_name}
            onChange={set('group_name')}
            error={errors.group_name}
          />
          <SaveCancelButtons saving={saving} onCancel={onClose} mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
