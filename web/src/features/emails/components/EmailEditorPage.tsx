import {
  Alert,
  Button,
  FileInput,
  Group,
  Modal,
  MultiSelect,
  Paper,
  Select,
  Stack,
  Tabs,
  Text,
  TextInput,
  Title,
} from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate } from '@tanstack/react-router';
import type { Email } from '@renkei/contracts';
import { useRef, useState } from 'react';
import { fieldErrorsOf } from '../../../api/api-errors.ts';
import { toast } from '../../../app/toast.ts';
import { useServices } from '../../../app/services-context.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import {
  emailQueries,
  useSaveEmail,
  useSendEmail,
  useSendEmailForTest,
  type EmailDraftValues,
} from '../emails.queries.ts';
import { hasFileRecipients, recalledRecipientsFileName, rememberRecipientsFileName } from '../recipients-file.ts';
import { EmailAttachmentInput, type EmailAttachmentValue } from './EmailAttachmentInput.tsx';
import { EmailBodyEditor } from './EmailBodyEditor.tsx';
import { UnsavedChangesGuard } from '../../../ui/UnsavedChangesGuard.tsx';

/** The server's field paths (`stringified.title`) as the form's fields. */
function formErrors(error: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [field, message] of Object.entries(fieldErrorsOf(error))) {
    const name = field.replace(/^stringified\./, '').replace(/^doctor_ids\.\d+$/, 'doctor_ids');
    out[name] ??= message;
  }
  return out;
}

/** The form differs from its last save: a field changed, or a recipients file is chosen and not yet sent. */
function hasUnsavedChanges(
  now: { values: EmailDraftValues; file: File | null },
  saved: { values: EmailDraftValues; file: File | null },
): boolean {
  return (now.file !== null && now.file !== saved.file) || JSON.stringify(now.values) !== JSON.stringify(saved.values);
}

const templateCsv = '\uFEFFメールアドレス,氏名,医療機関コード\r\n';

export function EmailEditorPage({
  email,
  restrictedSenders,
  userEmail,
}: {
  email: Email | null;
  /** The tenant's allowed senders when it restricts them; null: any address. */
  restrictedSenders: string[] | null;
  userEmail: string;
}) {
  const { api } = useServices();
  const navigate = useNavigate();
  const onError = useMutationErrorHandler();
  const save = useSaveEmail();
  const send = useSendEmail();
  const sendForTest = useSendEmailForTest();
  const [saved, setSaved] = useState<Email | null>(email);
  const [values, setValues] = useState<EmailDraftValues>({
    title: email?.title ?? '',
    sender_name: email?.sender_name ?? '',
    sender_email: email?.sender_email ?? restrictedSenders?.[0] ?? '',
    main_content: email?.main_content ?? '',
    doctor_ids: email?.doctor_ids ?? [],
    attachment_id: email?.attachment_id ?? null,
  });
  const [attachment, setAttachment] = useState<EmailAttachmentValue | null>(
    email?.attachment_id
      ? {
          id: email.attachment_id,
          // A file gone from the storage still shows, so it can be removed (saving it again is refused).
          filename: email.attachment_name ?? '（見つからないファイル）',
          size: email.attachment_size,
          url: email.attachment_url,
        }
      : null,
  );
  const [file, setFile] = useState<File | null>(null);
  const [savedFileName, setSavedFileName] = useState(() => (email ? recalledRecipientsFileName(email.id) : null));
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [keyword, setKeyword] = useState('');
  const [doctorLabels, setDoctorLabels] = useState<Record<string, string>>({});
  const [testAddress, setTestAddress] = useState(userEmail);
  const [confirming, setConfirming] = useState(false);
  const { data: destinations, isFetching: searchingDoctors } = useQuery(emailQueries.destinations(api, keyword));

  // A campaign takes a while to write: leaving with changes not saved (a menu link, 一覧へ戻る, a reload)
  // asks first. Refs, not state: the first save navigates to the saved draft before this renders again.
  const latest = useRef({ values, file });
  latest.current = { values, file };
  const lastSaved = useRef({ values, file: null as File | null });

  // The saved draft's recipients include a file's: the empty file field must not read as "no file".
  const savedFile = saved !== null && hasFileRecipients(saved);

  const set = <K extends keyof EmailDraftValues>(key: K, value: EmailDraftValues[K]) =>
    setValues((v) => ({ ...v, [key]: value }));

  const doctorOptions = [
    ...(destinations?.data ?? []).map((d) => ({
      value: d.id,
      label: `${d.name}（${d.medical_institution.name}）<${d.email}>`,
    })),
    // Chosen doctors stay listed while the search shows others.
    ...values.doctor_ids
      .filter((id) => !destinations?.data.some((d) => d.id === id))
      .map((id) => ({ value: id, label: doctorLabels[id] ?? '選択済みの医師' })),
  ];

  /** Saves the draft; answers the saved email, or null when the form shows what to fix. */
  const onSave = async (): Promise<Email | null> => {
    setErrors({});
    const sent = { values, file };
    try {
      const result = await save.mutateAsync({
        id: saved?.id ?? null,
        version: saved?.version ?? null,
        values,
        file,
      });
      lastSaved.current = sent;
      setSaved(result);
      if (file) {
        rememberRecipientsFileName(result.id, file.name);
        setSavedFileName(file.name);
      }
      setFile(null);
      if (result.attachment_id && result.attachment_name)
        setAttachment({
          id: result.attachment_id,
          filename: result.attachment_name,
          size: result.attachment_size,
          url: result.attachment_url,
        });
      toast.success('メールを保存しました');
      if (!saved) void navigate({ to: '/emails/$id/edit', params: { id: result.id }, replace: true });
      return result;
    } catch (error) {
      const fields = formErrors(error);
      if (Object.keys(fields).length > 0) setErrors(fields);
      else onError(error);
      return null;
    }
  };

  const onTestSend = async () => {
    const current = await onSave();
    if (!current) return;
    try {
      const { count } = await sendForTest.mutateAsync({ id: current.id, addresses: [testAddress.trim()] });
      toast.success(`テストメールを送信しました（${count}件）`);
      // A test send is recorded on the email: its version moved, and the next save must name the new one.
      setSaved(await api.getEmail({ params: { id: current.id } }));
    } catch (error) {
      const fields = fieldErrorsOf(error);
      if (Object.keys(fields).length > 0) setErrors({ test: Object.values(fields)[0]! });
      else onError(error);
    }
  };

  const onSend = async () => {
    if (!saved) return;
    try {
      await send.mutateAsync({ id: saved.id });
      toast.success('メールの送信を開始しました');
      void navigate({ to: '/emails', search: { status: 'sent', page: 1, per_page: 20 } });
    } catch (error) {
      const fields = fieldErrorsOf(error);
      // A send refused for its attachment (gone since it was saved) is said at the attachment.
      if (fields.attachment_id) setErrors({ attachment_id: fields.attachment_id });
      else if (Object.keys(fields).length > 0) setErrors({ recipients: Object.values(fields)[0]! });
      else onError(error);
    } finally {
      setConfirming(false);
    }
  };

  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          {email ? 'メールの編集' : 'メールの作成'}
        </Title>
        <ButtonLink variant="default" to="/emails" search={{ status: 'unsent', page: 1, per_page: 20 }}>
          一覧へ戻る
        </ButtonLink>
      </Group>
      <TextInput
        label="件名"
        required
        value={values.title}
        error={errors.title}
        onChange={(e) => set('title', e.currentTarget.value)}
      />
      <Group grow align="flex-start">
        <TextInput
          label="差出人名"
          required
          value={values.sender_name}
          error={errors.sender_name}
          onChange={(e) => set('sender_name', e.currentTarget.value)}
        />
        {restrictedSenders ? (
          <Select
            label="差出人メールアドレス"
            required
            data={restrictedSenders}
            value={values.sender_email || null}
            error={errors.sender_email}
            onChange={(v) => set('sender_email', v ?? '')}
          />
        ) : (
          <TextInput
            label="差出人メールアドレス"
            required
            type="email"
            value={values.sender_email}
            error={errors.sender_email}
            onChange={(e) => set('sender_email', e.currentTarget.value)}
          />
        )}
      </Group>
      <Tabs defaultValue="edit">
        <Tabs.List>
          <Tabs.Tab value="edit">本文</Tabs.Tab>
          <Tabs.Tab value="preview">プレビュー</Tabs.Tab>
        </Tabs.List>
        <Tabs.Panel value="edit" pt="xs">
          <EmailBodyEditor value={values.main_content} onChange={(html) => set('main_content', html)} />
          {errors.main_content && (
            <Text c="red" size="sm">
              {errors.main_content}
            </Text>
          )}
        </Tabs.Panel>
        <Tabs.Panel value="preview" pt="xs">
          {/* The mail as it will arrive (the server sanitises the same way); no scripts run in it. */}
          <iframe
            title="プレビュー"
            sandbox=""
            srcDoc={`<!doctype html><meta charset="utf-8"><body style="font-family:sans-serif">${values.main_content}</body>`}
            style={{ width: '100%', minHeight: 320, border: '1px solid var(--mantine-color-gray-3)' }}
          />
        </Tabs.Panel>
      </Tabs>
      <EmailAttachmentInput
        value={attachment}
        error={errors.attachment_id}
        onChange={(next) => {
          setAttachment(next);
          set('attachment_id', next?.id ?? null);
        }}
      />
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Text fw={600}>送信先</Text>
          <MultiSelect
            label="医師から選ぶ"
            placeholder="医師名・医療機関名で検索"
            searchable
            data={doctorOptions}
            value={values.doctor_ids}
            error={errors.doctor_ids}
            filter={({ options }) => options}
            // Without it an empty list opened as nothing at all: say why (doctors need an address to be listed).
            nothingFoundMessage={
              searchingDoctors
                ? '検索しています…'
                : keyword
                  ? '該当する医師が見つかりません'
                  : 'メールアドレスが登録された医師がいません。医療機関の医師情報にメールアドレスを登録するか、送信先ファイルを使ってください'
            }
            onSearchChange={setKeyword}
            searchValue={keyword}
            onChange={(ids) => {
              const labels = { ...doctorLabels };
              for (const o of doctorOptions) labels[o.value] = o.label;
              setDoctorLabels(labels);
              set('doctor_ids', ids);
            }}
          />
          <Group align="flex-end">
            <FileInput
              label="送信先ファイル（CSV）"
              placeholder={savedFile ? '保存済みのファイルを使用中' : 'ファイルを選択'}
              accept=".csv,text/csv"
              clearable
              value={file}
              error={errors.recipients_file}
              onChange={setFile}
              style={{ flex: 1 }}
            />
            <Button
              variant="subtle"
              component="a"
              href={`data:text/csv;charset=utf-8,${encodeURIComponent(templateCsv)}`}
              download="送信先テンプレート.csv"
            >
              テンプレート
            </Button>
          </Group>
          {savedFile && !file && (
            <Text size="sm" data-testid="email-saved-recipients-file">
              {savedFileName ? `保存済みの送信先ファイル: ${savedFileName}` : '送信先ファイルは保存済みです'}
              （下の件数に含まれます。差し替えるときは新しいファイルを選んでください）
            </Text>
          )}
          {saved && (
            <Text size="sm" data-testid="email-destination-counts">
              有効な送信先 {saved.destination_count}件・無効なアドレス {saved.invalid_destination_count}件
            </Text>
          )}
          {saved && saved.invalid_destinations.length > 0 && (
            // Which rows of the file to fix: the row as the spreadsheet shows it, and what it held.
            <Stack gap={0} data-testid="email-invalid-destinations">
              {saved.invalid_destinations.map((d) => (
                <Text key={d.row_number} size="xs" c="red">
                  {d.row_number}行目: 「{d.value}」はメールアドレスとして使えません
                </Text>
              ))}
              {saved.invalid_destination_count > saved.invalid_destinations.length && (
                <Text size="xs" c="dimmed">
                  ほか{saved.invalid_destination_count - saved.invalid_destinations.length}件
                </Text>
              )}
            </Stack>
          )}
          {errors.recipients && <Alert color="red">{errors.recipients}</Alert>}
        </Stack>
      </Paper>
      <Group justify="space-between" align="flex-end">
        <Group align="flex-end">
          <TextInput
            label="テスト送信先"
            value={testAddress}
            error={errors.test}
            onChange={(e) => setTestAddress(e.currentTarget.value)}
          />
          <Button variant="default" onClick={() => void onTestSend()} loading={sendForTest.isPending}>
            テスト送信
          </Button>
        </Group>
        <Group>
          <Button variant="default" onClick={() => void onSave()} loading={save.isPending}>
            保存
          </Button>
          <Button onClick={() => void onSave().then((r) => r && setConfirming(true))} disabled={save.isPending}>
            送信
          </Button>
        </Group>
      </Group>
      <UnsavedChangesGuard
        isDirty={() => hasUnsavedChanges(latest.current, lastSaved.current)}
        description="このページを離れると、保存していない変更（件名・本文・送信先など）は失われます。"
      />
      <Modal opened={confirming} onClose={() => setConfirming(false)} title="メールを送信" centered>
        <Stack>
          <Text>
            {saved?.destination_count ?? 0}件の送信先にメール「{saved?.title}」を送信します。送信後は編集できません。
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirming(false)}>
              キャンセル
            </Button>
            <Button onClick={() => void onSend()} loading={send.isPending}>
              送信する
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
