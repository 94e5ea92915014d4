import { Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { useEffect, useState, type FormEvent } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { maxPhaseDescriptionLength, maxPhaseNameLength, type PhaseMasterDraft } from '../phase-masters.queries.ts';

export type PhaseFormErrors = Partial<Record<'name' | 'description', string>>;

/**
 * Adds or renames one phase. `onSubmit` answers the field errors to show (the form stays open) or
 * null when the phase was saved.
 */
export function PhaseMasterFormModal({
  opened,
  phase,
  onClose,
  onSubmit,
}: {
  opened: boolean;
  /** The phase being edited; null when adding. */
  phase: PhaseMasterDraft | null;
  onClose: () => void;
  onSubmit: (values: PhaseMasterDraft) => Promise<PhaseFormErrors | null>;
}) {
  const [values, setValues] = useState({ name: '', description: '' });
  const [errors, setErrors] = useState<PhaseFormErrors>({});
  const [saving, setSaving] = useState(false);

  useEffect(() => {
    if (!opened) return;
    setValues({ name: phase?.name ?? '', description: phase?.description ?? '' });
    setErrors({});
  }, [opened, phase]);

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setSaving(true);
    try {
      setErrors((await onSubmit({ ...(phase?.id ? { id: phase.id } : {}), ...values })) ?? {});
    } finally {
      setSaving(false);
    }
  };

  return (
    <Modal opened={opened} onClose={onClose} title={phase ? 'フェーズを編集' : 'フェーズを追加'} centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="フェーズ名"
            required
            description={`${maxPhaseNameLength}文字以内`}
            value={values.name}
            onChange={(e) => {
              const name = e.currentTarget.value;
              setValues((v) => ({ ...v, name }));
            }}
            error={errors.name}
            data-autofocus
            data-testid="phase-name-input"
          />
          <Textarea
            label="説明"
            description={`${maxPhaseDescriptionLength}文字以内。どの状態の医療機関をこのフェーズにするかを書いておくと、担当者の判断がそろいます。`}
            autosize
            minRows={2}
            value={values.description}
            onChange={(e) => {
              const description = e.currentTarget.value;
              setValues((v) => ({ ...v, description }));
            }}
            error={errors.description}
            data-testid="phase-description-input"
          />
          <SaveCancelButtons saving={saving} onCancel={onClose} testId="save-phase" mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
