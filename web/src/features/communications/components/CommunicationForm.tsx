import { ActionIcon, Alert, Button, Card, Group, Select, Stack, Text, TextInput, Title } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { CommunicationCreateInput } from '@renkei/contracts';
import { useEffect, useRef, useState } from 'react';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { ApiError, fieldErrorsOf, isNetworkError } from '../../../api/api-errors.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useFormSubmit } from '../../../ui/useFormSubmit.ts';
import { InstitutionPicker } from './InstitutionPicker.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { currentUserQueries } from '../../current-user/current-user.queries.ts';
import { clearDraft, draftKey, loadDraft, saveDraft } from '../communication-draft.ts';
import { enqueueCommunication, removeFromOutbox, subscribeOutbox, type OutboxEvent } from '../communication-outbox.ts';
import { communicationQueries, ownTaskStaff, useCreateCommunication } from '../communications.queries.ts';
import {
  blankExtraFields,
  CommunicationFields,
  communicationBodyOf,
  labelsOfType,
  localErrorsOf,
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

/**
 * Logging a contact, built for a phone in one hand: large inputs, the type's own labels, tasks inline.
 * One Idempotency-Key per form: a retry after a timeout never makes a second record. What is typed is
 * kept on the device (communication-draft.ts). A record submitted without a network is handed, with
 * its key, to the outbox (communication-outbox.ts): the app's one sender (usePendingCommunicationsSender)
 * sends it when the network returns, whether or not this form is still open; the form never sends it
 * again itself. While it is open, it closes when the sender has sent the record, and takes the record
 * back, with the server's messages on its fields, when the server refuses it.
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
  const blank = (): FormValues => ({
    institution,
    communication_type: 'visit',
    acted_date: todayInTokyo(),
    ...blankExtraFields,
    story: '',
    memo: '',
    event_name: '',
    person_in_charge_hospital: '',
    is_doctor_attended: false,
    labelValues: {},
    tasks: [],
    attachments: [],
  });
  // A draft kept before a field existed lacks it: the blank form's value fills it.
  const [values, setValues] = useState<FormValues>(() => (restored ? { ...blank(), ...restored.values } : blank()));
  /** This form's record is in the outbox, waiting for the network. */
  const [pending, setPending] = useState(false);
  /** The server refused the record the sender sent: why, until it is submitted again. */
  const [refusal, setRefusal] = useState<string | null>(null);
  const [showRestored, setShowRestored] = useState(restored !== null);
  const [confirmingDiscard, setConfirmingDiscard] = useState(false);
  const pendingNotice = useRef<HTMLDivElement>(null);
  // The notice is brought into view once, when the record is kept (jsdom has no scrollIntoView).
  useEffect(() => {
    if (pending) pendingNotice.current?.scrollIntoView?.({ block: 'nearest', behavior: 'smooth' });
  }, [pending]);
  const touched = useRef(restored !== null);
  const typeLabels = labelsOfType(labels.data, values.communication_type);
  const actingUserDefault = ownTaskStaff(staffs.data, account.data?.id);

  const bodyOf = (v: FormValues) => ({
    ...communicationBodyOf(labelsOfType(labels.data, v.communication_type), v),
    tasks: v.tasks.map((t) => ({ title: t.title, deadline: t.deadline || null, staff_id: t.staff_id })),
  });

  const { errors, setErrors, saving, submit } = useFormSubmit({
    values,
    validate: (v): Record<string, string> => ({
      ...localErrorsOf(CommunicationCreateInput, bodyOf(v), labelsOfType(labels.data, v.communication_type), v),
      ...(v.institution ? {} : { institution: '医療機関を選んでください' }),
    }),
    save: async (v) => {
      setRefusal(null);
      try {
        await send(v);
      } catch (error) {
        if (
          isNetworkError(error) &&
          storageKey &&
          account.data &&
          enqueueCommunication(account.data.id, {
            idempotencyKey: idempotencyKey.current,
            institution: v.institution!,
            body: bodyOf(v),
            draft: { key: storageKey, values: v },
          })
        ) {
          // The outbox has it now: the user may close the form or put the phone away.
          touched.current = false;
          clearDraft(storageKey);
          setPending(true);
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
      body: bodyOf(v),
    });
    // Saved: nothing of this form is kept any more (the effect below would write it back).
    touched.current = false;
    if (storageKey) clearDraft(storageKey);
    toast.success('活動を記録しました');
    onSaved(saved.medical_institution?.id ?? v.institution!.id);
  }

  // Every change is kept on the device (not the untouched blank form, so opening it leaves nothing).
  useEffect(() => {
    if (!storageKey || !touched.current || pending) return;
    saveDraft(storageKey, { values, idempotencyKey: idempotencyKey.current });
  }, [storageKey, values, pending]);

  // What the sender does with a kept record while this form is open: this form's record sent closes
  // the form; refused, it comes back here with the server's messages. A record refused earlier and put
  // back into this form's slot fills the form when nothing has been typed yet.
  const onOutbox = useRef<(event: OutboxEvent) => void>(() => {});
  onOutbox.current = (event) => {
    if (event.type === 'sent' && pending && event.idempotencyKey === idempotencyKey.current) {
      setPending(false);
      onSaved(event.institutionId);
      return;
    }
    if (event.type !== 'returned') return;
    const own = pending && event.idempotencyKey === idempotencyKey.current;
    if (!own && (touched.current || event.draftKey === null || event.draftKey !== storageKey)) return;
    if (!own) {
      const draft = loadDraft<FormValues>(event.draftKey!);
      if (!draft) return;
      idempotencyKey.current = draft.idempotencyKey;
      setValues({ ...blank(), ...draft.values });
    } else if (event.draftKey !== storageKey) {
      // Put back elsewhere (this form's slot was written meanwhile, in another tab): this form holds it.
      if (event.draftKey !== null) clearDraft(event.draftKey);
      else if (account.data) removeFromOutbox(account.data.id, event.idempotencyKey);
    }
    touched.current = true;
    setPending(false);
    setShowRestored(false);
    setErrors(event.error ? fieldErrorsOf(event.error) : {});
    if (event.error) setRefusal(event.error.errors[0]?.message ?? event.error.message);
  };
  useEffect(() => subscribeOutbox((event) => onOutbox.current(event)), []);

  /** After a record was kept for the sender: a blank form for the next one, with a key of its own. */
  const startNext = () => {
    idempotencyKey.current = crypto.randomUUID();
    touched.current = false;
    setPending(false);
    setErrors({});
    setValues(blank());
  };

  const discardDraft = () => {
    if (storageKey) clearDraft(storageKey);
    idempotencyKey.current = crypto.randomUUID();
    touched.current = false;
    setShowRestored(false);
    setConfirmingDiscard(false);
    setRefusal(null);
    setErrors({});
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
        {refusal && (
          <Alert color="red" data-testid="communication-refused" role="alert">
            送信できませんでした（{refusal}）。内容を直して、もう一度「記録する」を押してください。
          </Alert>
        )}
        {showRestored && (
          <Alert
            color="blue"
            data-testid="communication-draft-restored"
            withCloseButton
            onClose={() => setShowRestored(false)}
          >
            {/* Everything typed goes with one tap: asked once more, with buttons a thumb cannot hit by mistake. */}
            {confirmingDiscard ? (
              <Stack gap="xs" data-testid="communication-draft-discard-confirm">
                <Text size="sm">入力途中の内容をすべて消して、新しく入力しますか？消した内容は元に戻せません。</Text>
                <Group gap="xs">
                  <Button size="md" color="red" onClick={discardDraft}>
                    消して新しく入力
                  </Button>
                  <Button size="md" variant="default" onClick={() => setConfirmingDiscard(false)}>
                    残す
                  </Button>
                </Group>
              </Stack>
            ) : (
              <Stack gap="xs" align="flex-start">
                <Text size="sm">前回入力途中の内容を復元しました。</Text>
                <Button size="md" variant="subtle" px="xs" onClick={() => setConfirmingDiscard(true)}>
                  破棄して新しく入力
                </Button>
              </Stack>
            )}
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
          <InstitutionPicker onPick={(picked) => set('institution', picked)} error={errors.institution} />
        )}
        {/* A kept record is the outbox's: nothing of it changes here (a disabled fieldset disables all). */}
        <fieldset disabled={pending} style={{ border: 0, padding: 0, margin: 0, minWidth: 0 }}>
          <Stack gap="md">
            <CommunicationFields
              values={values}
              onChange={(patch) => {
                touched.current = true;
                setValues((v) => ({ ...v, ...patch }));
              }}
              // Values typed for the other type's labels stay in the draft (only the chosen type's are sent),
              // so a type picked by mistake and changed back loses nothing.
              onTypeChange={(type) => {
                touched.current = true;
                setValues((prev) => ({ ...prev, communication_type: type }));
              }}
              errors={errors}
              typeLabels={typeLabels}
              ownDepartments={ownDepartments.data ?? []}
              staffs={staffs.data ?? []}
              actingUserDefault={actingUserDefault}
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
                        size="xl"
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
          </Stack>
        </fieldset>
        {/* Beside the button just pressed: on a phone the top of a long form is scrolled out of view, and a
            disabled form with no word of why reads as a record lost. */}
        {pending && (
          <Alert ref={pendingNotice} color="yellow" data-testid="communication-pending" role="status">
            <Stack gap="xs" align="flex-start">
              <Text size="sm">
                通信できないため、この記録は端末に保存しました。接続が戻ると自動で送信します。この画面は閉じてもかまいません。
              </Text>
              <Button size="md" variant="white" onClick={startNext}>
                続けて別の記録を入力
              </Button>
            </Stack>
          </Alert>
        )}
        <Button type="submit" size="lg" loading={saving} disabled={pending} fullWidth>
          記録する
        </Button>
      </Stack>
    </form>
  );
}
