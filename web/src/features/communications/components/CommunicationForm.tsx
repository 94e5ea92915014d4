import { ActionIcon, Alert, Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { ApiError, isNetworkError } from '../../../api/api-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { clearDraft, draftKey, loadDraft, saveDraft } from '../communication-draft.ts';
import { communicationQueries, ownTaskStaff, useCreateCommunication } from '../communications.queries.ts';
import {
  CommunicationFields,
  labelsOfType,
  labelValuesOf,
  type CommunicationFieldValues,
} from './CommunicationFields.tsx';

interface TaskDraft {
  title: string;
  deadline: string;
  staff_id: string | null;
}

interface FormValues extends CommunicationFieldValues {
  institution: { id: string; name: string } | null;
  tasks: TaskDraft[];
}

/** Today in Asia/Tokyo as YYYY-MM-DD (the acted date a visit defaults to). */
const todayInTokyo = () => new Date().toLocaleDateString('sv-SE', { timeZone: 'Asia/Tokyo' });

/** How often a record kept while offline is tried again, besides the browser's `online` event. */
const offlineRetryMs = 10_000;

/**
 * Logging a contact, built for a phone in one hand: large inputs, the type's own labels, tasks inline.
 * One Idempotency-Key per form: a retry after a timeout never makes a second record. What is typed is
 * kept on the device (communication-draft.ts) until the server has it, and a record sent without a
 * network is sent by itself when the network returns.
 */
export function CommunicationForm({
  institution,
  onSaved,
  heading = false,
}: {
  institution: { id: string; name: string } | null;
  onSaved: (institutionId: string) => void;
  /** The page shows its own heading; a dialog has its title. */
  heading?: boolean;
}) {
  const { api } = useServices();
  const account = useQuery({ ...currentUserQueries.detail(api), enabled: false });
  const storageKey = account.data ? draftKey(account.data.id, institution?.id ?? null) : null;
  const [restored] = useState(() => (storageKey ? loadDraft<FormValues>(storageKey) : null));
  const idempotencyKey = useRef(restored?.idempotencyKey ?? crypto.randomUUID());
  const create = useCreateCommunication();
  const onError = useMutationErrorHandler();
  const labels = useQuery(communicationQueries.labels(api));
  const staffs = useQuery(communicationQueries.staffs(api));
  const ownDepartments = useQuery(referenceDataQueries.ownDepartments(api));
  const [keyword, setKeyword] = useState('');
  const institutions = useQuery({
    queryKey: ['communications', 'institution-picker', keyword],
    queryFn: ({ signal }) => api.searchMedicalInstitutions({ body: { keyword, per_page: 20 }, signal }),
    enabled: keyword.trim().length > 0,
  });
  const blank = (): FormValues => ({
    institution,
    communication_type: 'visit',
    acted_date: todayInTokyo(),
    story: '',
    memo: '',
    event_name: '',
    person_in_charge_hospital: '',
    is_doctor_attended: false,
    labelValues: {},
    tasks: [],
    attachments: [],
  });
  const [values, setValues] = useState<FormValues>(() => restored?.values ?? blank());
  const [pending, setPending] = useState(restored?.pending ?? false);
  const [showRestored, setShowRestored] = useState(restored !== null && !restored.pending);
  const touched = useRef(restored !== null);
  const typeLabels = labelsOfType(labels.data, values.communication_type);

  const { errors, saving, submit } = useFormSubmit({
    values,
    validate: (v): Record<string, string> => (v.institution ? {} : { institution: '医療機関を選んでください' }),
    save: async (v) => {
      try {
        await send(v);
      } catch (error) {
        if (isNetworkError(error) && storageKey) {
          // Kept on the device and sent again by itself: the user may put the phone away.
          setPending(true);
          saveDraft(storageKey, { values: v, idempotencyKey: idempotencyKey.current, pending: true });
          return;
        }
        // A 422 goes to the fields (useFormSubmit); anything else is reported here.
        if (!(error instanceof ApiError && error.status === 422)) onError(error);
        throw error;
      }
    },
  });

  async function send(v: FormValues) {
    const saved = await create.mutateAsync({
      institutionId: v.institution!.id,
      idempotencyKey: idempotencyKey.current,
      body: {
        communication_type: v.communication_type,
        acted_date: v.acted_date,
        story: v.story,
        memo: v.memo,
        event_name: v.event_name || null,
        person_in_charge_hospital: v.person_in_charge_hospital || null,
        is_doctor_attended: v.is_doctor_attended,
        label_values: labelValuesOf(typeLabels, v),
        tasks: v.tasks.map((t) => ({ title: t.title, deadline: t.deadline || null, staff_id: t.staff_id })),
        attachment_ids: (v.attachments ?? []).map((f) => f.id),
      },
    });
    // Saved: nothing of this form is kept any more (the effect below would write it back).
    touched.current = false;
    if (storageKey) clearDraft(storageKey);
    setPending(false);
    toast.success('活動を記録しました');
    onSaved(saved.medical_institution?.id ?? v.institution!.id);
  }

  // Every change is kept on the device (not the untouched blank form, so opening it leaves nothing).
  useEffect(() => {
    if (!storageKey || !touched.current || pending) return;
    saveDraft(storageKey, { values, idempotencyKey: idempotencyKey.current, pending: false });
  }, [storageKey, values, pending]);

  // A record kept while offline goes out when the network is back (and is retried now and then, since
  // the browser's online flag can be wrong); the same Idempotency-Key makes any repeat the same record.
  const sendRef = useRef(send);
  sendRef.current = send;
  const valuesRef = useRef(values);
  valuesRef.current = values;
  useEffect(() => {
    if (!pending) return;
    let busy = false;
    const retry = () => {
      if (busy || (typeof navigator !== 'undefined' && navigator.onLine === false)) return;
      busy = true;
      sendRef.current(valuesRef.current).then(
        () => undefined,
        (error: unknown) => {
          busy = false;
          if (isNetworkError(error)) return;
          // The server answered with a refusal: the record stays as a draft for the user to fix.
          setPending(false);
          if (storageKey)
            saveDraft(storageKey, {
              values: valuesRef.current,
              idempotencyKey: idempotencyKey.current,
              pending: false,
            });
          onError(error);
        },
      );
    };
    retry();
    window.addEventListener('online', retry);
    const timer = window.setInterval(retry, offlineRetryMs);
    return () => {
      window.removeEventListener('online', retry);
      window.clearInterval(timer);
    };
  }, [pending, storageKey, onError]);

  const discardDraft = () => {
    if (storageKey) clearDraft(storageKey);
    idempotencyKey.current = crypto.randomUUID();
    touched.current = false;
    setShowRestored(false);
    setValues(blank());
  };

  const set = <K extends keyof FormValues>(key: K, value: FormValues[K]) => {
    touched.current = true;
    setValues((v) => ({ ...v, [key]: value }));
  };
  const setTask = (i: number, patch: Partial<TaskDraft>) =>
    set(
      'tasks',
      values.tasks.map((t, j) => (j === i ? { ...t, ...patch } : t)),
    );

  return (
    <form onSubmit={(e) => void submit(e)} noValidate>
      <Stack gap="md" maw={720}>
        {heading && (
          <Title order={2} size="h3">
            活動を記録
          </Title>
        )}
        {pending && (
          <Alert color="yellow" data-testid="communication-pending">
            通信できないため、この記録は端末に保存しました。接続が戻ると自動で送信します（画面を閉じても、次に開いたときに送信します）。
          </Alert>
        )}
        {showRestored && (
          <Alert
            color="blue"
            data-testid="communication-draft-restored"
            withCloseButton
            onClose={() => setShowRestored(false)}
          >
            <Group justify="space-between" gap="xs">
              <Text size="sm">前回入力途中の内容を復元しました。</Text>
              <Button size="xs" variant="subtle" onClick={discardDraft}>
                破棄して新しく入力
              </Button>
            </Group>
          </Alert>
        )}
        {values.institution ? (
          <Group justify="space-between" wrap="nowrap">
            <Text fw={600} data-testid="picked-institution">
              {values.institution.name}
            </Text>
            {!institution && (
              <Button variant="subtle" onClick={() => set('institution', null)}>
                変更
              </Button>
            )}
          </Group>
        ) : (
          <Select
            label="医療機関"
            required
            size="md"
            searchable
            placeholder="名称・カナ・住所で検索"
            searchValue={keyword}
            onSearchChange={setKeyword}
            data={(institutions.data?.data ?? []).map((m) => ({ value: m.id, label: m.name }))}
            onChange={(id) => {
              const picked = institutions.data?.data.find((m) => m.id === id);
              if (picked) set('institution', { id: picked.id, name: picked.name });
            }}
            nothingFoundMessage={keyword ? '見つかりません' : '名称を入力してください'}
            filter={({ options }) => options}
            error={errors.institution}
          />
        )}
        <CommunicationFields
          values={values}
          onChange={(patch) => {
            touched.current = true;
            setValues((v) => ({ ...v, ...patch }));
          }}
          onTypeChange={(type) => setValues((prev) => ({ ...prev, communication_type: type, labelValues: {} }))}
          errors={errors}
          typeLabels={typeLabels}
          ownDepartments={ownDepartments.data ?? []}
        />
        <Stack gap="xs">
          <Text fw={600}>タスク</Text>
          {values.tasks.map((task, i) => (
            <Card key={i} withBorder padding="xs">
              <Stack gap="xs">
                <Group gap="xs" wrap="nowrap">
                  <TextInput
                    style={{ flex: 1 }}
                    size="md"
                    label={`タスク${i + 1}`}
                    value={task.title}
                    onChange={(e) => setTask(i, { title: e.currentTarget.value })}
                    error={errors[`tasks.${i}.title`]}
                  />
                  <ActionIcon
                    variant="subtle"
                    color="red"
                    size="lg"
                    mt={24}
                    aria-label={`タスク${i + 1}を削除`}
                    onClick={() =>
                      set(
                        'tasks',
                        values.tasks.filter((_, j) => j !== i),
                      )
                    }
                  >
                    ×
                  </ActionIcon>
                </Group>
                <Group gap="xs" grow>
                  <TextInput
                    type="date"
                    size="md"
                    label="期限"
                    value={task.deadline}
                    onChange={(e) => setTask(i, { deadline: e.currentTarget.value })}
                    error={errors[`tasks.${i}.deadline`]}
                  />
                  <Select
                    size="md"
                    label="担当者"
                    data={(staffs.data ?? []).map((s) => ({ value: s.id, label: s.name }))}
                    value={task.staff_id}
                    onChange={(v) => setTask(i, { staff_id: v })}
                    clearable
                    error={errors[`tasks.${i}.staff_id`]}
                  />
                </Group>
              </Stack>
            </Card>
          ))}
          <Button
            variant="light"
            size="md"
            onClick={() =>
              set('tasks', [
                ...values.tasks,
                { title: '', deadline: '', staff_id: ownTaskStaff(staffs.data, account.data?.id) },
              ])
            }
            disabled={values.tasks.length >= 20}
          >
            タスクを追加
          </Button>
        </Stack>
        <Button type="submit" size="lg" loading={saving} fullWidth>
          記録する
        </Button>
      </Stack>
    </form>
  );
}
