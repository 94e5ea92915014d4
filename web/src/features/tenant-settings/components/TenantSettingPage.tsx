import {
  Badge,
  Button,
  Card,
  Checkbox,
  CloseButton,
  Group,
  Modal,
  NumberInput,
  Select,
  SimpleGrid,
  Stack,
  Switch,
  Text,
  TextInput,
  Textarea,
  Title,
} from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import {
  featureKeys,
  ipSelfExclusionSubCode,
  plans,
  prefectureNames,
  type FeatureKey,
  type Plan,
} from '@renkei/contracts';
import { useRef, useState, type FormEvent } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import {
  tenantSettingQueries,
  useUpdateTenantSetting,
  type TenantSettingInputValues,
} from '../tenant-settings.queries.ts';
import { featureLabels, parseLines } from '../tenant-setting-labels.ts';
import { InstitutionPicker } from './InstitutionPicker.tsx';
import { TenantLogoField } from './TenantLogoField.tsx';
import { TenantSettingHistory } from './TenantSettingHistory.tsx';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { UnsavedChangesGuard } from '../../../ui/UnsavedChangesGuard.tsx';

interface Named {
  id: string;
  name: string;
}

/**
 * The first message among fields at `key` or below it (`ip_allow_list.2`), for one input showing a list.
 * With the list's entries, a message about one entry names it: in a list of many the person sees which.
 */
function errorAt(errors: Record<string, string>, key: string, entries?: readonly string[]): string | undefined {
  const found = Object.entries(errors).find(([field]) => field === key || field.startsWith(`${key}.`));
  if (!found) return undefined;
  const entry = entries?.[Number(found[0].slice(key.length + 1))];
  return found[0] !== key && entry !== undefined ? `「${entry}」: ${found[1]}` : found[1];
}

export function TenantSettingPage() {
  const { api } = useServices();
  const { data: setting } = useSuspenseQuery(tenantSettingQueries.detail(api));
  const update = useUpdateTenantSetting();
  const onError = useMutationErrorHandler();
  const [name, setName] = useState(setting.name);
  const [plan, setPlan] = useState<Plan>(setting.plan);
  const [featuresOff, setFeaturesOff] = useState<FeatureKey[]>(setting.features_off);
  const [own, setOwn] = useState<Named | null>(setting.medical_institution);
  const [group, setGroup] = useState<Named[]>(setting.group_medical_institutions);
  const [isGroup, setIsGroup] = useState(setting.is_group);
  const [enabledPhase, setEnabledPhase] = useState(setting.enabled_phase);
  const [maxAccounts, setMaxAccounts] = useState<number | string>(setting.max_account_count ?? '');
  const [maxTags, setMaxTags] = useState<number | string>(setting.max_tag_count ?? '');
  const [senders, setSenders] = useState(setting.email_sender_allowed_addresses.join('\n'));
  const [ipList, setIpList] = useState(setting.ip_allow_list.join('\n'));
  const [prefecture, setPrefecture] = useState<string | null>(setting.prefecture);
  const [latitude, setLatitude] = useState<number | string>(setting.latitude ?? '');
  const [longitude, setLongitude] = useState<number | string>(setting.longitude ?? '');
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [confirmExclusion, setConfirmExclusion] = useState<string | null>(null);
  // The form as typed (not as parsed: a blank line added to a list is still a change the person made).
  const form = JSON.stringify([
    name,
    plan,
    featuresOff,
    own?.id ?? null,
    group.map((g) => g.id),
    isGroup,
    enabledPhase,
    maxAccounts,
    maxTags,
    senders,
    ipList,
    prefecture,
    latitude,
    longitude,
  ]);
  const savedForm = useRef(form);

  const save = async (confirm: boolean) => {
    setErrors({});
    const sent = form;
    try {
      await update.mutateAsync({
        name,
        plan,
        features_off: featuresOff,
        medical_institution_id: own?.id ?? null,
        group_medical_institution_ids: group.map((g) => g.id),
        is_group: isGroup,
        enabled_phase: enabledPhase,
        max_account_count: typeof maxAccounts === 'number' ? maxAccounts : null,
        max_tag_count: typeof maxTags === 'number' ? maxTags : null,
        email_sender_allowed_addresses: parseLines(senders),
        ip_allow_list: parseLines(ipList),
        confirm_ip_exclusion: confirm,
        prefecture: prefecture as TenantSettingInputValues['prefecture'],
        latitude: typeof latitude === 'number' ? latitude : null,
        longitude: typeof longitude === 'number' ? longitude : null,
      });
      savedForm.current = sent;
      setConfirmExclusion(null);
      toast.success('テナント設定を保存しました');
    } catch (error) {
      setConfirmExclusion(null);
      if (isApiError(error) && error.status === 422 && error.subCode === ipSelfExclusionSubCode) {
        setConfirmExclusion(error.errors[0]?.message ?? '');
      } else if (isApiError(error) && error.status === 422) {
        setErrors(fieldErrorsOf(error));
        toast.error('入力内容に誤りがあります。');
      } else {
        onError(error);
      }
    }
  };

  const submit = (event: FormEvent) => {
    event.preventDefault();
    void save(false);
  };

  return (
    <Stack gap="lg" maw={880}>
      <Title order={2} fz="xl">
        テナント設定
      </Title>
      <TenantLogoField logo={setting.logo} tenantName={setting.name} />
      <form onSubmit={submit} noValidate>
        <Stack gap="md">
          <Card withBorder>
            <Stack gap="sm">
              <TextInput
                label="テナント名"
                required
                value={name}
                onChange={(e) => setName(e.currentTarget.value)}
                error={errors.name}
              />
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  自院
                </Text>
                {own ? (
                  <Group gap="xs">
                    <Badge variant="light" size="lg" data-testid="own-institution">
                      {own.name || own.id}
                    </Badge>
                    <CloseButton aria-label="自院の設定を外す" onClick={() => setOwn(null)} />
                  </Group>
                ) : (
                  <Text size="sm" c="dimmed">
                    未設定です。医療機関マスタから選んでください。
                  </Text>
                )}
                <InstitutionPicker label="自院を検索" onPick={setOwn} />
                {errors.medical_institution_id && (
                  <Text size="sm" c="red">
                    {errors.medical_institution_id}
                  </Text>
                )}
              </Stack>
              <Stack gap={4}>
                <Text size="sm" fw={500}>
                  グループ医療機関
                </Text>
                <Group gap="xs">
                  {group.length === 0 && (
                    <Text size="sm" c="dimmed">
                      なし
                    </Text>
                  )}
                  {group.map((g) => (
                    <Badge
                      key={g.id}
                      variant="outline"
                      rightSection={
                        <CloseButton
                          size="xs"
                          aria-label={`${g.name}をグループから外す`}
                          onClick={() => setGroup((list) => list.filter((x) => x.id !== g.id))}
                        />
                      }
                    >
                      {g.name}
                    </Badge>
                  ))}
                </Group>
                <InstitutionPicker
                  label="グループ医療機関を追加"
                  onPick={(picked) =>
                    setGroup((list) => (list.some((g) => g.id === picked.id) ? list : [...list, picked]))
                  }
                />
                {errorAt(errors, 'group_medical_institution_ids') && (
                  <Text size="sm" c="red">
                    {errorAt(errors, 'group_medical_institution_ids')}
                  </Text>
                )}
              </Stack>
              <Switch
                label="グループ分析を使う"
                checked={isGroup}
                onChange={(e) => setIsGroup(e.currentTarget.checked)}
              />
            </Stack>
          </Card>

          <Card withBorder>
            <Stack gap="sm">
              <Select
                label="都道府県"
                placeholder="未設定"
                data={[...prefectureNames]}
                value={prefecture}
                onChange={setPrefecture}
                clearable
                searchable
                error={errors.prefecture}
              />
              <Group grow align="flex-start">
                <NumberInput
                  label="地図の中心（緯度）"
                  placeholder="例: 35.681"
                  decimalScale={6}
                  value={latitude}
                  onChange={setLatitude}
                  error={errors.latitude}
                />
                <NumberInput
                  label="地図の中心（経度）"
                  placeholder="例: 139.767"
                  decimalScale={6}
                  value={longitude}
                  onChange={setLongitude}
                  error={errors.longitude}
                />
              </Group>
              <Text size="xs" c="dimmed">
                地図（営業マップ）を開いたときの中心です。緯度と経度を両方入力してください。
              </Text>
            </Stack>
          </Card>

          <Card withBorder>
            <Stack gap="sm">
              <Select
                label="プラン"
                data={plans.map((p) => ({ value: p, label: p }))}
                value={plan}
                onChange={(v) => v && setPlan(v as Plan)}
                allowDeselect={false}
                error={errors.plan}
              />
              <Checkbox.Group
                label="無効にする機能"
                description="プランに含まれていても、チェックした機能は使えなくなります"
                value={featuresOff}
                onChange={(v) => setFeaturesOff(v as FeatureKey[])}
              >
                <SimpleGrid cols={{ base: 1, sm: 3 }} mt={4} spacing={4}>
                  {featureKeys.map((key) => (
                    <Checkbox key={key} value={key} label={featureLabels[key]} size="xs" />
                  ))}
                </SimpleGrid>
              </Checkbox.Group>
              <Text size="xs" c="dimmed">
                現在使える機能: {setting.features.map((key) => featureLabels[key] ?? key).join('、')}
              </Text>
              <Switch
                label="フェーズを使う"
                checked={enabledPhase}
                onChange={(e) => setEnabledPhase(e.currentTarget.checked)}
              />
              <Group grow>
                <NumberInput
                  label="アカウント数の上限"
                  placeholder="上限なし"
                  min={1}
                  value={maxAccounts}
                  onChange={setMaxAccounts}
                  error={errors.max_account_count}
                />
                <NumberInput
                  label="タグ数の上限"
                  placeholder="上限なし"
                  min={1}
                  value={maxTags}
                  onChange={setMaxTags}
                  error={errors.max_tag_count}
                />
              </Group>
            </Stack>
          </Card>

          <Card withBorder>
            <Stack gap="sm">
              <Textarea
                label="送信元として許可するメールアドレス"
                description="1行に1件"
                autosize
                minRows={2}
                value={senders}
                onChange={(e) => setSenders(e.currentTarget.value)}
                error={errorAt(errors, 'email_sender_allowed_addresses', parseLines(senders))}
              />
              <Textarea
                label="許可するIPアドレス"
                description={`1行に1件、CIDR形式（例: 203.0.113.0/24、2001:db8::/32）。空欄にするとすべてのアドレスから利用できます。現在の接続元: ${setting.client_ip}`}
                autosize
                minRows={3}
                value={ipList}
                onChange={(e) => setIpList(e.currentTarget.value)}
                error={errorAt(errors, 'ip_allow_list', parseLines(ipList))}
              />
            </Stack>
          </Card>
          <SaveCancelButtons saving={update.isPending} />
        </Stack>
      </form>
      <TenantSettingHistory />
      <UnsavedChangesGuard
        isDirty={() => form !== savedForm.current}
        description="このページを離れると、保存していないテナント設定の変更は失われます。"
      />
      <Modal
        opened={confirmExclusion !== null}
        onClose={() => setConfirmExclusion(null)}
        title="接続元のIPアドレスが含まれていません"
        centered
      >
        <Stack>
          <Text size="sm">{confirmExclusion}</Text>
          <Text size="sm" c="dimmed">
            保存すると、このテナントの利用者は許可したアドレスからしか利用できなくなります。
          </Text>
          <Group justify="flex-end">
            <Button variant="default" onClick={() => setConfirmExclusion(null)}>
              やめる
            </Button>
            <Button color="red" loading={update.isPending} onClick={() => void save(true)}>
              このまま保存する
            </Button>
          </Group>
        </Stack>
      </Modal>
    </Stack>
  );
}
