import { Modal, MultiSelect, Select, SimpleGrid, Stack, TextInput, Textarea } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { VocInput, type VocGroup, type VocListItem, type VocPriority, type VocStatus } from '@renkei/contracts';
import { useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { DiscardChangesModal } from '../../communications/components/DiscardChangesModal.tsx';
import { useViewport } from '../../../frame/use-viewport.ts';
import { InstitutionPicker, type PickedInstitution } from '../../../ui/InstitutionPicker.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { communicationQueries, communicationTypeLabels } from '../../communications/communications.queries.ts';
import { vocPriorityLabels, vocStatusLabels, type VocInputValues } from '../vocs.queries.ts';
import { useReturnFocus } from '../../../ui/useReturnFocus.ts';

interface FormValues {
  institution: PickedInstitution | null;
  title: string;
  reported_date: string;
  status: VocStatus;
  priority: VocPriority;
  voc_group_id: string | null;
  user_id: string | null;
  detail_text: string;
  action_text: string;
  communication_ids: string[];
}

/** A VOC opened from a communication: its institution and the link are given. */
export interface VocPreset {
  institution: PickedInstitution;
  communicationIds: string[];
}

const todayInTokyo = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' });
const statusOptions = Object.entries(vocStatusLabels).map(([value, label]) => ({ value, label }));
const priorityOptions = Object.entries(vocPriorityLabels).map(([value, label]) => ({ value, label }));

function toInput(v: FormValues): VocInputValues {
  return {
    medical_institution_id: v.institution?.id ?? '',
    title: v.title,
    reported_date: v.reported_date,
    status: v.status,
    priority: v.priority,
    voc_group_id: v.voc_group_id,
    user_id: v.user_id,
    detail_text: v.detail_text,
    action_text: v.action_text,
    communication_ids: v.communication_ids,
  };
}

/** The contract's own check, so the messages are the server's; the institution first of all. */
function validateVoc(v: FormValues): Record<string, string> {
  const out: Record<string, string> = {};
  if (!v.institution) out.medical_institution_id = '医療機関を選んでください';
  const parsed = VocInput.safeParse(toInput(v));
  if (!parsed.success)
    for (const issue of parsed.error.issues)
      if (!v.institution || issue.path[0] !== 'medical_institution_id') out[String(issue.path[0])] ??= issue.message;
  return out;
}

function initialValues(voc: VocListItem | null, preset: VocPreset | null): FormValues {
  if (voc)
    return {
      institution: voc.medical_institution,
      title: voc.title,
      reported_date: voc.reported_date,
      status: voc.status,
      priority: voc.priority,
      voc_group_id: voc.voc_group_id,
      user_id: voc.user?.id ?? null,
      detail_text: voc.detail_text,
      action_text: voc.action_text,
      communication_ids: voc.communication_ids,
    };
  return {
    institution: preset?.institution ?? null,
    title: '',
    reported_date: todayInTokyo(),
    status: 'NOT_STARTED',
    priority: 'MIDDLE',
    voc_group_id: null,
    user_id: null,
    detail_text: '',
    action_text: '',
    communication_ids: preset?.communicationIds ?? [],
  };
}

interface VocFormModalProps {
  opened: boolean;
  /** The VOC being edited; null when creating. */
  voc: VocListItem | null;
  preset?: VocPreset | null;
  groups: VocGroup[];
  onClose: () => void;
  onSubmit: (body: VocInputValues) => Promise<unknown>;
}

/**
 * Mounted for each opening (its values start from `voc` or `preset` once): a parent re-rendering
 * while the user types never resets the form.
 */
export function VocFormModal({ opened, voc, preset = null, groups, onClose, onSubmit }: VocFormModalProps) {
  useReturnFocus(opened);
  const { api } = useServices();
  const phone = useViewport() === 'phone';
  const [initial] = useState<FormValues>(() => initialValues(voc, preset));
  const [values, setValues] = useState<FormValues>(initial);
  // Closing over what was typed asks first (a phone's stray tap on × or Escape lost the whole text).
  const [asking, setAsking] = useState(false);
  const requestClose = () => (JSON.stringify(values) === JSON.stringify(initial) ? onClose() : setAsking(true));
  const { errors, saving, submit } = useFormSubmit({
    values,
    validate: validateVoc,
    save: (v) => onSubmit(toInput(v)),
  });
  const staffs = useQuery(communicationQueries.staffs(api));
  const institutionId = values.institution?.id ?? null;
  // The institution's recent communications, to link the VOC to where it was heard.
  const communications = useQuery({
    ...communicationQueries.institutionSearch(api, institutionId ?? '', { per_page: 50 }),
    enabled: institutionId !== null,
  });

  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => setValues((v) => ({ ...v, [key]: value }));
  const communicationOptions = (communications.data?.data ?? []).map((c) => ({
    value: c.id,
    label: `${c.acted_date.replaceAll('-', '/')} ${communicationTypeLabels[c.communication_type]}${c.story ? ` ${c.story.slice(0, 20)}` : ''}`,
  }));
  // A linked record older than the 50 shown stays selectable.
  for (const id of values.communication_ids)
    if (!communicationOptions.some((o) => o.value === id)) {
      const known = voc?.communications.find((c) => c.id === id);
      communicationOptions.push({
        value: id,
        label: known
          ? `${known.acted_date.replaceAll('-', '/')} ${communicationTypeLabels[known.communication_type]}`
          : '活動記録',
      });
    }

  return (
    // On a phone the whole screen, as the communication forms: the keyboard leaves the fields in view.
    <Modal
      opened={opened}
      onClose={requestClose}
      closeButtonProps={{ 'aria-label': '閉じる' }}
      title={voc ? 'VOCを編集' : 'VOCを登録'}
      size="lg"
      centered
      fullScreen={phone}
    >
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="sm">
          <InstitutionPicker
            value={values.institution}
            onChange={(picked) => setValues((v) => ({ ...v, institution: picked, communication_ids: [] }))}
            locked={preset !== null}
            error={errors.medical_institution_id}
          />
          <TextInput
            label="タイトル"
            required
            value={values.title}
            onChange={(e) => set('title', e.currentTarget.value)}
            error={errors.title}
            data-autofocus
          />
          <SimpleGrid cols={{ base: 1, sm: 3 }}>
            <TextInput
              label="報告日"
              type="date"
              required
              value={values.reported_date}
              onChange={(e) => set('reported_date', e.currentTarget.value)}
              error={errors.reported_date}
            />
            <Select
              label="ステータス"
              data={statusOptions}
              value={values.status}
              allowDeselect={false}
              onChange={(v) => v && set('status', v as VocStatus)}
              error={errors.status}
            />
            <Select
              label="優先度"
              data={priorityOptions}
              value={values.priority}
              allowDeselect={false}
              onChange={(v) => v && set('priority', v as VocPriority)}
              error={errors.priority}
            />
          </SimpleGrid>
          <SimpleGrid cols={{ base: 1, sm: 2 }}>
            <Select
              label="グループ"
              placeholder="グループなし"
              clearable
              data={groups.map((g) => ({ value: g.id, label: g.name }))}
              value={values.voc_group_id}
              onChange={(v) => set('voc_group_id', v)}
              error={errors.voc_group_id}
            />
            <Select
              label="担当者"
              placeholder="自分"
              clearable
              searchable
              data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
              value={values.user_id}
              onChange={(v) => set('user_id', v)}
              error={errors.user_id}
            />
          </SimpleGrid>
          <Textarea
            label="内容"
            autosize
            minRows={3}
            value={values.detail_text}
            onChange={(e) => set('detail_text', e.currentTarget.value)}
            error={errors.detail_text}
          />
          <Textarea
            label="対応内容"
            autosize
            minRows={2}
            value={values.action_text}
            onChange={(e) => set('action_text', e.currentTarget.value)}
            error={errors.action_text}
          />
          <MultiSelect
            label="関連する活動記録"
            placeholder={institutionId ? '活動記録を選ぶ' : '先に医療機関を選んでください'}
            disabled={institutionId === null}
            data={communicationOptions}
            value={values.communication_ids}
            onChange={(ids) => set('communication_ids', ids)}
            error={
              errors.communication_ids ?? Object.entries(errors).find(([k]) => k.startsWith('communication_ids.'))?.[1]
            }
            clearable
          />
          <SaveCancelButtons saving={saving} onCancel={requestClose} mt="sm" testId="voc-save" />
        </Stack>
      </form>
      <DiscardChangesModal opened={asking} onKeep={() => setAsking(false)} onDiscard={onClose} />
    </Modal>
  );
}
