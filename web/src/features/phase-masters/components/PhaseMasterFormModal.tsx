import { Modal, Stack, TextInput, Textarea } from '@mantine/core';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useOrderedListForm } from '../../../ui/useOrderedListEditor.ts';
import { maxPhaseDescriptionLength, maxPhaseNameLength, type PhaseMasterDraft } from '../phase-masters.queries.ts';

type PhaseFormErrors = Partial<Record<'name' | 'description', string>>;

const blank: PhaseMasterDraft = { name: '', description: '' };

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
  const { values, set, errors, saving, submit } = useOrderedListForm({ opened, draft: phase, blank, onSubmit });

  return (
    <Modal opened={opened} onClose={onClose} title={phase ? 'フェーズを編集' : 'フェーズを追加'} centered>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <TextInput
            label="フェーズ名"
            required
            description={`${maxPhaseNameLength}文字以内`}
            value={values.name}
            onChange={(e) => set('name', e.currentTarget.value)}
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
            onChange={(e) => set('description', e.currentTarget.value)}
            error={errors.description}
            data-testid="phase-description-input"
          />
          <SaveCancelButtons saving={saving} onCancel={onClose} testId="save-phase" mt="sm" />
        </Stack>
      </form>
    </Modal>
  );
}
