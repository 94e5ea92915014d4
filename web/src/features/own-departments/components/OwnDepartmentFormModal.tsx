import { Modal, Select, Stack, TextInput } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useMemo } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useOrderedListForm } from '../../../ui/useOrderedListEditor.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  maxOwnDepartmentNameLength,
  type OwnDepartmentDraft,
  type OwnDepartmentErrors,
} from '../own-departments.queries.ts';

const blank: OwnDepartmentDraft = { name: '', department_id: null };

/**
 * Adds or edits one own department. `onSubmit` answers the field errors to show (the form stays open)
 * or null when the department was saved.
 */
export function OwnDepartmentFormModal({
  opened,
  department,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  /** The department being edited; null when adding. */
  department: OwnDepartmentDraft | null;
  onClose: () => void;
  onSubmit: (values: OwnDepartmentDraft) => Promise<OwnDepartmentErrors | null>;
}) {
  const { api } = useServices();
  const masters = useQuery({ ...referenceDataQueries.departments(api), enabled: opened });
  const options = useMemo(
    () => (masters.data ?? []).map((d) => ({ value: d.id, label: `${d.name}（${d.id}）` })),
    [masters.data],
  );
  const { values, set, errors, saving, submit } = useOrderedListForm({ opened, draft: department, blank, onSubmit });

  return (
    <Modal opened={opened} onClose={onClose} title={department ? '自院診療科を編集' : '自院診療科を新規作成'} centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="診療科名"
            required
            description={
              department
                ? `${maxOwnDepartmentNameLength}文字以内。名前を変えても、対応付け済みの紹介データはそのままです。取り込み済みで「未設定」の行は新しい名前で照合されます。`
                : `${maxOwnDepartmentNameLength}文字以内。紹介データの紹介先診療科・逆紹介データの自院診療科に書かれる名前と同じにしてください。`
            }
            value={values.name}
            onChange={(e) => set('name', e.currentTarget.value)}
            error={errors.name}
            data-autofocus
            data-testid="own-department-name-input"
          />
          <Select
            label="標準診療科"
            description="診療科マスタの対応する診療科（任意）。"
            placeholder={masters.isPending && opened ? '読み込み中…' : '選択しない'}
            data={options}
            value={values.department_id}
            onChange={(department_id) => set('department_id', department_id)}
            searchable
            clearable
            nothingFoundMessage="該当する診療科がありません"
            error={errors.department_id ?? (masters.isError ? '診療科マスタを読み込めませんでした' : undefined)}
            data-testid="own-department-master-select"
          />
          <SaveCancelButtons saving={saving} onCancel={onClose} testId="save-own-department" mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
