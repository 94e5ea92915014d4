import {
  ActionIcon,
  Alert,
  Button,
  Card,
  Group,
  MultiSelect,
  NumberInput,
  Stack,
  Table,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState, type RefObject } from 'react';
import { ReferralAdmissionPeriodInput, type SegmentationSetting } from '@renkei/contracts';
import { isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import {
  referralSettingQueries,
  useSaveAdmissionPeriod,
  useSaveSegmentationSetting,
} from '../referral-settings.queries.ts';
import { UnsavedChangesGuard } from '../../../ui/UnsavedChangesGuard.tsx';

/** Which of the two forms holds changes not saved, as each last rendered. */
type Unsaved = RefObject<{ period: boolean; segments: boolean }>;

interface SegmentRow {
  key: string;
  id: string | null;
  label: string;
  count: number | string;
  rate: number | string;
}
const toNumber = (v: number | string) => (v === '' ? null : Number(v));
/** How a row's buttons name it: its label, or its place while it has none. */
const segmentName = (r: SegmentRow, i: number) =>
  r.label.trim() ? `セグメント「${r.label.trim()}」` : `${i + 1}行目のセグメント`;
const segmentWithoutCondition =
  '紹介件数か入院率のどちらかを入力してください（条件のないセグメントにはすべての医療機関が入ります）';
const rowsOf = (s: SegmentationSetting): SegmentRow[] =>
  s.segments.map((x) => ({
    key: x.id,
    id: x.id,
    label: x.label,
    count: x.referral_count_more_equal ?? '',
    rate: x.referral_admission_rate_more_equal ?? '',
  }));

/**
 * Owners' referral settings on /data_uploads (docs/decisions.md, Referral segments): the days after a
 * referral within which a stay follows it, and the segments of institutions by referrals and admission
 * rate. The segments are matched top to bottom: the order of the rows is their priority.
 */
export function ReferralSettingsSection() {
  const unsaved: Unsaved = useRef({ period: false, segments: false });
  return (
    <Card withBorder padding="lg" data-testid="referral-settings">
      <Stack gap="lg">
        <Title order={3}>紹介データの設定</Title>
        <AdmissionPeriodForm unsaved={unsaved} />
        <SegmentationForm unsaved={unsaved} />
      </Stack>
      <UnsavedChangesGuard
        isDirty={() => unsaved.current.period || unsaved.current.segments}
        description="このページを離れると、保存していない紹介データの設定（入院とみなす期間・セグメント）は失われます。"
      />
    </Card>
  );
}

function AdmissionPeriodForm({ unsaved }: { unsaved: Unsaved }) {
  const { api } = useServices();
  const period = useQuery(referralSettingQueries.period(api));
  const save = useSaveAdmissionPeriod();
  const onError = useMutationErrorHandler();
  const [days, setDays] = useState<number | string>('');
  // Once the owner types, the field is theirs: a reload arriving late (after a save, on focus) must not
  // replace what is being typed.
  const [edited, setEdited] = useState(false);
  useEffect(() => {
    if (period.data && !edited) setDays(period.data.max_referral_hospital_admission_period);
  }, [period.data, edited]);
  const savedDays = useRef<number | string | null>(null);
  const baseline = savedDays.current ?? period.data?.max_referral_hospital_admission_period ?? '';
  unsaved.current.period = edited && String(days) !== String(baseline);
  const { errors, saving, submit } = useFormSubmit({
    values: days,
    // The contract's own check: a value out of range is said, never changed behind the owner's back.
    validate: (v): Record<string, string> => {
      if (v === '') return { max_referral_hospital_admission_period: '入院期間を入力してください' };
      const parsed = ReferralAdmissionPeriodInput.safeParse({ max_referral_hospital_admission_period: Number(v) });
      const out: Record<string, string> = {};
      if (!parsed.success) for (const issue of parsed.error.issues) out[issue.path.join('.')] ??= issue.message;
      return out;
    },
    save: async (v) => {
      try {
        await save.mutateAsync({ max_referral_hospital_admission_period: Number(v) });
        savedDays.current = v;
      } catch (error) {
        if (!(isApiError(error) && error.status === 422)) onError(error);
        throw error;
      }
      toast.success('入院期間を保存しました。紹介と入院の紐付けを更新しています');
    },
  });
  return (
    <form onSubmit={(e) => void submit(e)} noValidate data-testid="admission-period-form">
      <Group align="flex-end">
        <NumberInput
          label="紹介後の入院とみなす期間（日）"
          description="紹介日からこの日数以内に始まった同じ患者の入院を、その紹介による入院とします"
          min={1}
          max={365}
          // Not clamped: 500 would become 365 unseen; the check says what is allowed instead.
          clampBehavior="none"
          allowDecimal={false}
          value={days}
          onChange={(v) => {
            setEdited(true);
            setDays(v);
          }}
          error={errors.max_referral_hospital_admission_period}
          w={360}
        />
        <Button type="submit" loading={saving} disabled={!period.data}>
          保存
        </Button>
      </Group>
    </form>
  );
}

/** The segmentation form's content, to tell a change from what was loaded or saved. */
const segmentationJson = (rest: string, excluded: string[], rows: SegmentRow[]) =>
  JSON.stringify({ rest, excluded, rows: rows.map(({ id, label, count, rate }) => [id, label, count, rate]) });

function SegmentationForm({ unsaved }: { unsaved: Unsaved }) {
  const { api } = useServices();
  const setting = useQuery(referralSettingQueries.segmentation(api));
  const departments = useQuery(referenceDataQueries.ownDepartments(api));
  const save = useSaveSegmentationSetting();
  const onError = useMutationErrorHandler();
  const [rest, setRest] = useState('');
  const [excluded, setExcluded] = useState<string[]>([]);
  const [rows, setRows] = useState<SegmentRow[]>([]);
  const [conflict, setConflict] = useState(false);
  const savedJson = useRef<string | null>(null);
  useEffect(() => {
    if (!setting.data) return;
    setRest(setting.data.rest_segment_label);
    setExcluded(setting.data.excluded_own_department_ids);
    setRows(rowsOf(setting.data));
    savedJson.current = segmentationJson(
      setting.data.rest_segment_label,
      setting.data.excluded_own_department_ids,
      rowsOf(setting.data),
    );
  }, [setting.data]);
  unsaved.current.segments = savedJson.current !== null && segmentationJson(rest, excluded, rows) !== savedJson.current;
  const setRow = (i: number, patch: Partial<SegmentRow>) =>
    setRows((r) => r.map((x, j) => (j === i ? { ...x, ...patch } : x)));
  const move = (i: number, by: -1 | 1) =>
    setRows((r) => {
      const next = [...r];
      [next[i], next[i + by]] = [next[i + by]!, next[i]!];
      return next;
    });
  // A department deleted since the setting was saved is not offered, shown or sent back: the command would
  // refuse the whole setting for it, and the select could only name it by its id.
  const known = departments.data;
  const shownExcluded = known ? excluded.filter((id) => known.some((d) => d.id === id)) : excluded;
  const { errors, saving, submit } = useFormSubmit({
    values: { rest, excluded: shownExcluded, rows },
    validate: (v) => ({
      ...(v.rest.trim() ? {} : { rest_segment_label: 'その他のセグメント名を入力してください' }),
      ...Object.fromEntries(
        v.rows.flatMap((r, i) => (r.label.trim() ? [] : [[`segments.${i}.label`, 'セグメント名を入力してください']])),
      ),
      // The command's own check, said before sending: a segment without a condition takes every institution.
      ...Object.fromEntries(
        v.rows.flatMap((r, i) =>
          r.count === '' && r.rate === '' ? [[`segments.${i}.referral_count_more_equal`, segmentWithoutCondition]] : [],
        ),
      ),
    }),
    save: async (v) => {
      try {
        await save.mutateAsync({
          version: setting.data?.version ?? null,
          body: {
            rest_segment_label: v.rest,
            excluded_own_department_ids: v.excluded,
            segments: v.rows.map((r, i) => ({
              id: r.id,
              label: r.label,
              priority: i + 1,
              referral_count_more_equal: toNumber(r.count),
              referral_admission_rate_more_equal: toNumber(r.rate),
            })),
          },
        });
      } catch (error) {
        if (isApiError(error) && error.status === 409) {
          // Another owner saved since this card was loaded: theirs is shown, nothing is overwritten.
          setConflict(true);
          void setting.refetch();
        } else if (!(isApiError(error) && error.status === 422)) onError(error);
        throw error;
      }
      setConflict(false);
      savedJson.current = segmentationJson(rest, excluded, rows);
      toast.success('セグメント設定を保存しました');
    },
  });
  return (
    <form onSubmit={(e) => void submit(e)} noValidate data-testid="segmentation-form">
      <Stack gap="sm">
        <Text fw={600}>紹介入院セグメント</Text>
        {conflict && (
          <Alert color="yellow" data-testid="segmentation-conflict">
            ほかのオーナーが先にセグメント設定を保存したため、保存できませんでした。最新の設定を表示しています。内容を確認してから、もう一度保存してください。
          </Alert>
        )}
        <Text size="sm" c="dimmed">
          直近12か月（今月を除く）の紹介件数と入院率（紹介のうち入院につながった割合）で医療機関を分けます。上の行から順に判定し、どれにも当てはまらない医療機関は「その他」のセグメントになります。
        </Text>
        <Table withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th>セグメント名</Table.Th>
              <Table.Th>紹介件数（以上）</Table.Th>
              <Table.Th>入院率％（以上）</Table.Th>
              <Table.Th />
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((r, i) => (
              <Table.Tr key={r.key} data-testid="segment-row">
                <Table.Td>
                  <TextInput
                    aria-label={`セグメント名 ${i + 1}`}
                    value={r.label}
                    onChange={(e) => setRow(i, { label: e.currentTarget.value })}
                    error={errors[`segments.${i}.label`] ?? errors[`segments.${i}.priority`]}
                  />
                </Table.Td>
                <Table.Td>
                  <NumberInput
                    aria-label={`紹介件数 ${i + 1}`}
                    min={0}
                    clampBehavior="none"
                    allowDecimal={false}
                    value={r.count}
                    onChange={(count) => setRow(i, { count })}
                    error={errors[`segments.${i}.referral_count_more_equal`]}
                  />
                </Table.Td>
                <Table.Td>
                  <NumberInput
                    aria-label={`入院率 ${i + 1}`}
                    min={0}
                    max={100}
                    clampBehavior="none"
                    value={r.rate}
                    onChange={(rate) => setRow(i, { rate })}
                    error={errors[`segments.${i}.referral_admission_rate_more_equal`]}
                  />
                </Table.Td>
                <Table.Td>
                  <Group gap={4} wrap="nowrap">
                    {/* Each row's buttons say which segment they act on: a list of 「削除」 tells a screen reader nothing. */}
                    <ActionIcon
                      variant="subtle"
                      aria-label={`${segmentName(r, i)}を上へ`}
                      disabled={i === 0}
                      onClick={() => move(i, -1)}
                    >
                      ↑
                    </ActionIcon>
                    <ActionIcon
                      variant="subtle"
                      aria-label={`${segmentName(r, i)}を下へ`}
                      disabled={i === rows.length - 1}
                      onClick={() => move(i, 1)}
                    >
                      ↓
                    </ActionIcon>
                    <Button
                      variant="subtle"
                      color="red"
                      size="compact-sm"
                      aria-label={`${segmentName(r, i)}を削除`}
                      onClick={() => setRows((x) => x.filter((_, j) => j !== i))}
                    >
                      削除
                    </Button>
                  </Group>
                </Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
        <Group>
          <Button
            variant="light"
            onClick={() =>
              setRows((x) => [...x, { key: crypto.randomUUID(), id: null, label: '', count: '', rate: '' }])
            }
            disabled={rows.length >= 20}
          >
            セグメントを追加
          </Button>
        </Group>
        <Group grow align="flex-start">
          <TextInput
            label="どのセグメントにも当てはまらない医療機関"
            value={rest}
            onChange={(e) => setRest(e.currentTarget.value)}
            error={errors.rest_segment_label}
          />
          <MultiSelect
            label="集計から除く自院診療科"
            data={(departments.data ?? []).map((d) => ({ value: d.id, label: d.name }))}
            value={shownExcluded}
            onChange={setExcluded}
            clearable
            error={Object.entries(errors).find(([k]) => k.startsWith('excluded_own_department_ids'))?.[1]}
          />
        </Group>
        <Group justify="flex-end">
          <Button type="submit" loading={saving} disabled={!setting.data}>
            セグメント設定を保存
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
