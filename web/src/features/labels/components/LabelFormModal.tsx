import {
  ActionIcon,
  Alert,
  Button,
  Checkbox,
  Group,
  Modal,
  Paper,
  Select,
  Stack,
  Text,
  TextInput,
  Textarea,
} from '@mantine/core';
import {
  CommunicationLabelInput,
  LabelComponentType,
  MedicalInstitutionLabelInput,
  communicationTypeNames,
  type CommunicationLabel,
  type CommunicationType,
  type MedicalInstitutionLabel,
} from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { prefectures } from '../../reference-data/prefectures.ts';
import { componentTypeLabel } from '../label-values.ts';
import type { CommunicationLabelInputValues, InstitutionLabelInputValues } from '../labels.queries.ts';

interface SelectionDraft {
  id?: string;
  label: string;
}
interface AreaDraft {
  id?: string;
  name: string;
  addresses: { prefecture: string; city_or_locality: string }[];
}
interface LabelDraft {
  name: string;
  description: string;
  component_type: LabelComponentType;
  selections: SelectionDraft[];
  areas: AreaDraft[];
  /** Communication labels only: the record type it belongs to, and whether a record must fill it. */
  communication_type: CommunicationType;
  is_required: boolean;
}

const choiceTypes: LabelComponentType[] = ['select', 'radio', 'checkbox'];

function toLabelInput(d: LabelDraft): InstitutionLabelInputValues {
  return {
    name: d.name,
    description: d.description,
    component_type: d.component_type,
    // Choices and areas belong to their types only; a leftover list from another type is not sent.
    selections: choiceTypes.includes(d.component_type) ? d.selections : [],
    areas: d.component_type === 'area' ? d.areas : [],
  };
}

function toCommunicationLabelInput(d: LabelDraft): CommunicationLabelInputValues {
  const { areas: _areas, ...rest } = toLabelInput(d);
  return { ...rest, communication_type: d.communication_type, is_required: d.is_required };
}

/** Issues keyed by their dotted path (`selections.0.label`), as the server's 422 names them. */
function validateLabel(kind: LabelKind, d: LabelDraft): Record<string, string> {
  const parsed =
    kind === 'communication'
      ? CommunicationLabelInput.safeParse(toCommunicationLabelInput(d))
      : MedicalInstitutionLabelInput.safeParse(toLabelInput(d));
  const out: Record<string, string> = {};
  if (!parsed.success) for (const issue of parsed.error.issues) out[issue.path.join('.')] ??= issue.message;
  return out;
}

function move<T>(list: T[], from: number, to: number): T[] {
  if (to < 0 || to >= list.length) return list;
  const copy = [...list];
  const [item] = copy.splice(from, 1);
  copy.splice(to, 0, item!);
  return copy;
}

type LabelKind = 'institution' | 'communication';

export type LabelFormModalProps =
  | {
      kind?: 'institution';
      opened: boolean;
      label: MedicalInstitutionLabel | null;
      onClose: () => void;
      onSubmit: (body: InstitutionLabelInputValues) => Promise<unknown>;
    }
  | {
      kind: 'communication';
      opened: boolean;
      label: CommunicationLabel | null;
      /** The type a new label starts with (the one the list shows). */
      defaultCommunicationType: CommunicationType;
      onClose: () => void;
      onSubmit: (body: CommunicationLabelInputValues) => Promise<unknown>;
    };

const blankDraft = (communication_type: CommunicationType): LabelDraft => ({
  name: '',
  description: '',
  component_type: 'text',
  selections: [],
  areas: [],
  communication_type,
  is_required: false,
});

/** One form for both kinds of label: institution labels add areas, communication labels a type and 必須. */
export function LabelFormModal(props: LabelFormModalProps) {
  const { opened, label, onClose } = props;
  const kind: LabelKind = props.kind ?? 'institution';
  const startType = props.kind === 'communication' ? props.defaultCommunicationType : 'visit';
  const [draft, setDraft] = useState<LabelDraft>(blankDraft(startType));
  const { errors, setErrors, saving, submit } = useFormSubmit({
    values: draft,
    validate: (d) => validateLabel(kind, d),
    save: (d) =>
      props.kind === 'communication' ? props.onSubmit(toCommunicationLabelInput(d)) : props.onSubmit(toLabelInput(d)),
  });

  useEffect(() => {
    if (!opened) return;
    setErrors({});
    setDraft(
      label
        ? {
            ...blankDraft(startType),
            name: label.name,
            description: label.description,
            component_type: label.component_type,
            selections: [...label.selections]
              .sort((a, b) => a.order - b.order)
              .map((s) => ({ id: s.id, label: s.label })),
            areas:
              'areas' in label
                ? label.areas.map((a) => ({ id: a.id, name: a.name, addresses: a.addresses.map((x) => ({ ...x })) }))
                : [],
            ...('communication_type' in label
              ? { communication_type: label.communication_type, is_required: label.is_required }
              : {}),
          }
        : blankDraft(startType),
    );
  }, [opened, label, setErrors, startType]);

  const setSelections = (selections: SelectionDraft[]) => setDraft((d) => ({ ...d, selections }));
  const setAreas = (areas: AreaDraft[]) => setDraft((d) => ({ ...d, areas }));
  const setArea = (i: number, area: AreaDraft) => setAreas(draft.areas.map((a, j) => (j === i ? area : a)));
  const isChoice = choiceTypes.includes(draft.component_type);
  const known = new Set([
    'name',
    'description',
    'component_type',
    'selections',
    'areas',
    'communication_type',
    'is_required',
  ]);
  const otherErrors = Object.entries(errors).filter(([k]) => !known.has(k) && !/^(selections|areas)\.\d/.test(k));

  return (
    <Modal opened={opened} onClose={onClose} title={label ? 'ラベルを編集' : 'ラベルを作成'} centered size="lg">
      <form onSubmit={(e) => void submit(e)} noValidate data-testid="label-form">
        <Stack gap="sm">
          <TextInput
            label="ラベル名"
            required
            value={draft.name}
            error={errors.name}
            onChange={(e) => setDraft({ ...draft, name: e.currentTarget.value })}
            data-autofocus
          />
          <Textarea
            label="説明"
            autosize
            minRows={2}
            value={draft.description}
            error={errors.description}
            onChange={(e) => setDraft({ ...draft, description: e.currentTarget.value })}
          />
          {kind === 'communication' && (
            <Select
              label="活動種別"
              required
              data={Object.entries(communicationTypeNames).map(([value, name]) => ({ value, label: name }))}
              value={draft.communication_type}
              error={errors.communication_type}
              // The server refuses moving a label to another type: its values belong to that type's records.
              disabled={label !== null}
              onChange={(v) => v && setDraft({ ...draft, communication_type: v as CommunicationType })}
              allowDeselect={false}
              data-testid="label-communication-type"
            />
          )}
          <Select
            label="入力形式"
            required
            data={LabelComponentType.options
              // Areas are for institution labels only.
              .filter((t) => kind === 'institution' || t !== 'area')
              .map((t) => ({ value: t, label: componentTypeLabel[t] }))}
            value={draft.component_type}
            error={errors.component_type}
            onChange={(v) => v && setDraft({ ...draft, component_type: v as LabelComponentType })}
            allowDeselect={false}
            data-testid="label-component-type"
          />
          {isChoice && (
            <Stack gap={6}>
              <Text size="sm" fw={500}>
                選択肢（上から表示順）
              </Text>
              {errors.selections && (
                <Text size="xs" c="red">
                  {errors.selections}
                </Text>
              )}
              {draft.selections.map((s, i) => (
                <Group key={s.id ?? `new-${i}`} gap={4} wrap="nowrap" align="flex-start">
                  <TextInput
                    flex={1}
                    aria-label={`選択肢${i + 1}`}
                    value={s.label}
                    error={errors[`selections.${i}.label`]}
                    onChange={(e) => {
                      const value = e.currentTarget.value;
                      setSelections(draft.selections.map((x, j) => (j === i ? { ...x, label: value } : x)));
                    }}
                  />
                  <ActionIcon
                    variant="default"
                    aria-label="上へ"
                    onClick={() => setSelections(move(draft.selections, i, i - 1))}
                    disabled={i === 0}
                  >
                    ↑
                  </ActionIcon>
                  <ActionIcon
                    variant="default"
                    aria-label="下へ"
                    onClick={() => setSelections(move(draft.selections, i, i + 1))}
                    disabled={i === draft.selections.length - 1}
                  >
                    ↓
                  </ActionIcon>
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    aria-label="選択肢を削除"
                    onClick={() => setSelections(draft.selections.filter((_, j) => j !== i))}
                  >
                    ×
                  </ActionIcon>
                </Group>
              ))}
              <Button
                size="xs"
                variant="light"
                onClick={() => setSelections([...draft.selections, { label: '' }])}
                data-testid="add-selection"
              >
                選択肢を追加
              </Button>
            </Stack>
          )}
          {draft.component_type === 'area' && (
            <Stack gap={6}>
              <Text size="sm" fw={500}>
                エリア
              </Text>
              {errors.areas && (
                <Text size="xs" c="red">
                  {errors.areas}
                </Text>
              )}
              {draft.areas.map((area, i) => (
                <Paper key={area.id ?? `new-${i}`} withBorder p="xs">
                  <Stack gap={6}>
                    <Group gap={4} wrap="nowrap" align="flex-start">
                      <TextInput
                        flex={1}
                        aria-label={`エリア${i + 1}の名前`}
                        placeholder="エリア名"
                        value={area.name}
                        error={errors[`areas.${i}.name`]}
                        onChange={(e) => setArea(i, { ...area, name: e.currentTarget.value })}
                      />
                      <ActionIcon
                        variant="subtle"
                        color="red"
                        aria-label="エリアを削除"
                        onClick={() => setAreas(draft.areas.filter((_, j) => j !== i))}
                      >
                        ×
                      </ActionIcon>
                    </Group>
                    {errors[`areas.${i}.addresses`] && (
                      <Text size="xs" c="red">
                        {errors[`areas.${i}.addresses`]}
                      </Text>
                    )}
                    {area.addresses.map((addr, k) => (
                      <Group key={k} gap={4} wrap="nowrap" align="flex-start">
                        <Select
                          w={130}
                          aria-label="都道府県"
                          placeholder="都道府県"
                          searchable
                          data={prefectures.map((p) => ({ value: p.code, label: p.name }))}
                          value={addr.prefecture || null}
                          error={errors[`areas.${i}.addresses.${k}.prefecture`]}
                          onChange={(v) =>
                            setArea(i, {
                              ...area,
                              addresses: area.addresses.map((x, m) => (m === k ? { ...x, prefecture: v ?? '' } : x)),
                            })
                          }
                        />
                        <TextInput
                          flex={1}
                          aria-label="市区町村"
                          placeholder="市区町村（空欄で都道府県全体）"
                          value={addr.city_or_locality}
                          error={errors[`areas.${i}.addresses.${k}.city_or_locality`]}
                          onChange={(e) => {
                            const value = e.currentTarget.value;
                            setArea(i, {
                              ...area,
                              addresses: area.addresses.map((x, m) =>
                                m === k ? { ...x, city_or_locality: value } : x,
                              ),
                            });
                          }}
                        />
                        <ActionIcon
                          variant="subtle"
                          color="red"
                          aria-label="住所を削除"
                          onClick={() => setArea(i, { ...area, addresses: area.addresses.filter((_, m) => m !== k) })}
                        >
                          ×
                        </ActionIcon>
                      </Group>
                    ))}
                    <Button
                      size="compact-xs"
                      variant="subtle"
                      onClick={() =>
                        setArea(i, {
                          ...area,
                          addresses: [...area.addresses, { prefecture: '', city_or_locality: '' }],
                        })
                      }
                    >
                      住所を追加
                    </Button>
                  </Stack>
                </Paper>
              ))}
              <Button
                size="xs"
                variant="light"
                onClick={() =>
                  setAreas([...draft.areas, { name: '', addresses: [{ prefecture: '', city_or_locality: '' }] }])
                }
              >
                エリアを追加
              </Button>
            </Stack>
          )}
          {kind === 'communication' && (
            <Checkbox
              label="必須（この種別の活動を記録するときに入力が必要）"
              checked={draft.is_required}
              onChange={(e) => setDraft({ ...draft, is_required: e.currentTarget.checked })}
              data-testid="label-required"
            />
          )}
          {otherErrors.length > 0 && (
            <Alert color="red">
              {otherErrors.map(([k, m]) => (
                <div key={k}>{m}</div>
              ))}
            </Alert>
          )}
          <SaveCancelButtons saving={saving} onCancel={onClose} testId="save-label" />
        </Stack>
      </form>
    </Modal>
  );
}
