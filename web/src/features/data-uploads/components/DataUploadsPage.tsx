import { Alert, Button, Card, FileInput, Group, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import {
  dataUploadMaxBytes,
  endpoints,
  fillPath,
  formatUploadLimit,
  MappedListType,
  type DataUploadType,
  type MappingProfile,
} from '@renkei/contracts';
import { useEffect, useState } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { downloadFile, uploadFile } from '../../imports/file-transfer.ts';
import { useImportEnded } from '../../imports/useImportEnded.ts';
import { dataUploadQueries, referralRowKeys, useSaveMappingProfiles } from '../data-uploads.queries.ts';
import { useWithdrawalEnded } from '../useWithdrawalEnded.ts';
import { readFileHead, type FileHead } from '../file-head.ts';
import { initialListMapping, type ListMappingValues } from '../list-mapping.ts';
import { DataUploadHistory } from './DataUploadHistory.tsx';
import { MappingStep } from './MappingStep.tsx';
import { UnmatchedInstitutions } from './UnmatchedInstitutions.tsx';
import { uploadTypes } from './labels.ts';
import { ReferralSettingsSection } from '../../referral-settings/components/ReferralSettingsSection.tsx';
import { ListPagination } from '../../../ui/ListPagination.tsx';
import { UploadProgressBar, type UploadProgressValue } from '../../../ui/UploadProgressBar.tsx';

const isList = (type: DataUploadType): type is MappedListType => MappedListType.safeParse(type).success;

export function DataUploadsPage() {
  const services = useServices();
  const queryClient = useQueryClient();
  const [page, setPage] = useState(1);
  const [awaitedId, setAwaitedId] = useState<string | null>(null);
  const list = useQuery(dataUploadQueries.list(services.api, { page }, awaitedId));
  const profiles = useQuery(dataUploadQueries.profiles(services.api));
  // The tenant comes with the signed-in user (cached by the authenticated layout).
  const tenant = useQuery(referenceDataQueries.tenant(services.api));
  const saveProfiles = useSaveMappingProfiles();
  const onError = useMutationErrorHandler();
  const [files, setFiles] = useState<Partial<Record<DataUploadType, File | null>>>({});
  const [errors, setErrors] = useState<Partial<Record<DataUploadType, string>>>({});
  const [mapping, setMapping] = useState<{ type: MappedListType; file: File; head: FileHead } | null>(null);
  const [busy, setBusy] = useState<DataUploadType | null>(null);
  const [progress, setProgress] = useState<UploadProgressValue | null>(null);
  // An upload that ends may have brought unmatched institutions, and every upload type is referral data
  // (the lists, and the DPC files' stays: admissions, operations) that an institution's referral page lists.
  // A withdrawal's record leaves the history when its rows are all taken back: only then do the figures and
  // the other screens stop counting them. Both change the same rows, so both read the same queries again.
  const readRowsAgain = () => {
    for (const queryKey of referralRowKeys) void queryClient.invalidateQueries({ queryKey });
  };
  useImportEnded(list.data?.data, readRowsAgain);
  useWithdrawalEnded(list.data, readRowsAgain);

  // Once shown, the upload just made is no longer polled for. Its end, even before it first showed, is the hook's.
  useEffect(() => {
    if (awaitedId !== null && list.data?.data.some((r) => r.id === awaitedId)) setAwaitedId(null);
  }, [awaitedId, list.data]);

  const send = async (type: DataUploadType, file: File, mappingProfileId?: string) => {
    setBusy(type);
    setProgress({ loaded: 0, total: file.size });
    setErrors((e) => ({ ...e, [type]: undefined }));
    try {
      const record = await uploadFile(
        services,
        endpoints.createDataUpload,
        file,
        { import_type: type, mapping_profile_id: mappingProfileId },
        { onProgress: setProgress },
      );
      setAwaitedId(record.id);
      toast.success('アップロードしました。取り込みを開始します');
      setFiles((f) => ({ ...f, [type]: null }));
      setMapping(null);
      setPage(1);
      await queryClient.invalidateQueries({ queryKey: dataUploadQueries.all });
    } catch (e) {
      // A file over its type's limit is said on its card, as a refused field is.
      if (isApiError(e) && (e.status === 422 || e.status === 413))
        setErrors((x) => ({ ...x, [type]: Object.values(fieldErrorsOf(e))[0] ?? e.message }));
      else onError(e);
    } finally {
      setBusy(null);
      setProgress(null);
    }
  };

  const profileOf = (type: MappedListType): MappingProfile | undefined =>
    profiles.data?.profiles.find((p) => p.import_type === type);

  const start = async (type: DataUploadType) => {
    const file = files[type];
    if (!file) {
      setErrors((e) => ({ ...e, [type]: 'ファイルを選択してください' }));
      return;
    }
    if (file.size > dataUploadMaxBytes[type]) {
      setErrors((e) => ({
        ...e,
        [type]: `ファイルが大きすぎます（上限 ${formatUploadLimit(dataUploadMaxBytes[type])}）。`,
      }));
      return;
    }
    if (!isList(type)) return send(type, file);
    const head = await readFileHead(file);
    setMapping({ type, file, head });
  };

  /** One saved mapping per list: the last one the owner confirmed, offered again for the next file. */
  const saveAndSend = async (type: MappedListType, file: File, chosen: ListMappingValues) => {
    const current = profiles.data?.profiles ?? [];
    const profile: MappingProfile = {
      id: profileOf(type)?.id ?? crypto.randomUUID(),
      import_type: type,
      name: type === 'referral' ? '紹介リストの対応付け' : '逆紹介リストの対応付け',
      mapping: chosen,
    };
    try {
      await saveProfiles.mutateAsync({ profiles: [...current.filter((p) => p.import_type !== type), profile] });
    } catch (e) {
      onError(e);
      return;
    }
    await send(type, file, profile.id);
  };

  const initialMapping = (type: MappedListType, head: FileHead) =>
    initialListMapping(type, head, profileOf(type)?.mapping);

  const template = (type: MappedListType) =>
    downloadFile(
      services,
      { ...endpoints.dataUploadTemplate, path: fillPath(endpoints.dataUploadTemplate.path, { import_type: type }) },
      { fallbackName: `${type}_template.csv` },
    ).catch(onError);

  return (
    <Stack gap="md">
      <Title order={2} fz="xl">
        データアップロード
      </Title>
      {tenant.data && !tenant.data.medical_institution_id && (
        // Without the own hospital, 7-digit codes cannot be verified, nor DPC rows told from another hospital's.
        <Alert color="yellow" title="自院の医療機関が設定されていません" data-testid="no-own-hospital">
          7桁の医療機関コードは都道府県が分からないため検証できず、医療機関マスタの候補や医療機関名で照合します。DPCファイルの施設コードも確認できません。サポート窓口に自院の医療機関の設定を依頼してから取り込むと確実です。
        </Alert>
      )}
      <SimpleGrid cols={{ base: 1, sm: 2, lg: 3 }} spacing="md">
        {uploadTypes.map(({ type, label, expects }) => (
          // A region named by its title: each card has the same 「アップロード」 buttons, and a screen reader
          // says which card it is in as the keyboard enters it.
          <Card
            key={type}
            withBorder
            padding="md"
            component="section"
            aria-labelledby={`upload-card-title-${type}`}
            data-testid={`upload-card-${type}`}
          >
            <Stack gap="xs">
              <Text fw={600} id={`upload-card-title-${type}`}>
                {label}
              </Text>
              <Text size="xs" c="dimmed">
                {expects}
              </Text>
              <Text size="xs" c="dimmed" data-testid={`upload-limit-${type}`}>
                1ファイル {formatUploadLimit(dataUploadMaxBytes[type])} まで
              </Text>
              <FileInput
                aria-label={`${label}のファイル`}
                placeholder="ファイルを選択"
                value={files[type] ?? null}
                onChange={(file) => setFiles((f) => ({ ...f, [type]: file }))}
                error={errors[type]}
                clearable
                size="xs"
              />
              <Group gap="xs">
                <Button size="xs" onClick={() => void start(type)} loading={busy === type}>
                  {isList(type) ? '列を確認してアップロード' : 'アップロード'}
                </Button>
                {isList(type) && (
                  <Button size="xs" variant="default" onClick={() => void template(type)}>
                    テンプレート
                  </Button>
                )}
              </Group>
              {busy === type && progress && (
                <UploadProgressBar progress={progress} testId={`upload-progress-${type}`} />
              )}
            </Stack>
          </Card>
        ))}
      </SimpleGrid>
      {mapping && (
        <Paper withBorder p="md">
          <Title order={3} fz="md" mb="sm">
            列の対応付け: {mapping.file.name}
          </Title>
          <MappingStep
            key={mapping.file.name + mapping.type}
            type={mapping.type}
            head={mapping.head}
            initial={initialMapping(mapping.type, mapping.head)}
            saving={busy === mapping.type || saveProfiles.isPending}
            onCancel={() => setMapping(null)}
            onSubmit={(chosen) => void saveAndSend(mapping.type, mapping.file, chosen)}
          />
          {busy === mapping.type && progress && (
            <UploadProgressBar progress={progress} testId="mapping-upload-progress" />
          )}
        </Paper>
      )}
      <Paper withBorder p="md">
        <Stack gap="sm">
          <Title order={3} fz="md">
            アップロード履歴
          </Title>
          {list.isError && <Text c="red">アップロード履歴を読み込めませんでした。</Text>}
          {list.data && <DataUploadHistory records={list.data.data} />}
          <ListPagination
            totalPages={list.data?.meta.total_pages}
            value={page}
            onChange={setPage}
            aria-label="ページ"
          />
        </Stack>
      </Paper>
      <Paper withBorder p="md">
        <UnmatchedInstitutions />
      </Paper>
      <ReferralSettingsSection />
    </Stack>
  );
}
