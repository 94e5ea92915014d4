import { Card, Select, Stack, Switch, TextInput, Title } from '@mantine/core';
import { useSuspenseQuery } from '@tanstack/react-query';
import type { NotificationSettings } from '@renkei/contracts';
import { useRef, useState, type FormEvent } from 'react';
import { fieldErrorsOf, isApiError } from '../../../api/api-errors.ts';
import { useServices } from '../../../app/services-context.tsx';
import { toast } from '../../../app/toast.ts';
import { profileQueries, useUpdateProfile } from '../profile.queries.ts';
import { SaveCancelButtons } from '../../../ui/SaveCancelButtons.tsx';
import { referenceDataQueries } from '../../reference-data/reference-data.queries.ts';
import { UnsavedChangesGuard } from '../../../ui/UnsavedChangesGuard.tsx';

const notificationLabels: Record<keyof NotificationSettings, string> = {
  enabled_notification: 'お知らせを受け取る',
  enabled_communication_reactions_summary: 'コミュニケーションへの反応のまとめを受け取る',
  enabled_alerts_summary: 'アラートのまとめを受け取る',
  enabled_medical_institution_report_alert: '医療機関レポートのアラートを受け取る',
};

/** What each setting sends today (docs/decisions.md "Notification mails"). */
const notificationDescriptions: Record<keyof NotificationSettings, string> = {
  enabled_notification: 'オフにすると、下のすべての通知メールが届かなくなります。',
  enabled_communication_reactions_summary:
    '自分の活動記録に前日ついたコメントといいねを、翌朝7時ごろに1通のメールにまとめてお送りします。',
  enabled_alerts_summary:
    '新しいアラートや対象の医療機関が増えたアラートを、毎朝7時ごろに前日朝からの分をまとめて1通のメールでお送りします。',
  enabled_medical_institution_report_alert:
    '通知先に自分が設定された医療機関レポートのアラートが出たとき、そのつどメールでお送りします。',
};

export function ProfilePage() {
  const { api } = useServices();
  const { data: profile } = useSuspenseQuery(profileQueries.detail(api));
  const { data: departments } = useSuspenseQuery(referenceDataQueries.ownDepartments(api));
  const update = useUpdateProfile();
  const [username, setUsername] = useState(profile.username);
  const [ownDepartmentId, setOwnDepartmentId] = useState<string | null>(profile.own_department_id);
  const [settings, setSettings] = useState<NotificationSettings>(profile.notification_settings);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const input = { username, notification_settings: settings, own_department_id: ownDepartmentId };
  const saved = useRef(JSON.stringify(input));

  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setErrors({});
    try {
      await update.mutateAsync(input);
      saved.current = JSON.stringify(input);
      toast.success('個人設定を保存しました');
    } catch (error) {
      if (isApiError(error) && error.status === 422) {
        setErrors(fieldErrorsOf(error));
        toast.error('入力内容に誤りがあります。');
      }
    }
  };

  return (
    <Stack gap="lg" maw={640}>
      <Title order={2} fz="xl">
        個人設定
      </Title>
      <form onSubmit={(e) => void submit(e)} noValidate>
        <Stack gap="md">
          <Card withBorder>
            <TextInput
              label="氏名"
              required
              value={username}
              onChange={(e) => setUsername(e.currentTarget.value)}
              error={errors.username}
            />
            <Select
              mt="md"
              label="所属診療科"
              description="あなたが所属する自院の診療科です。データ分析はこの診療科の数字で開きます。"
              placeholder={departments.length === 0 ? '自院の診療科が登録されていません' : '未設定'}
              data={departments.map((d) => ({ value: d.id, label: d.name }))}
              value={ownDepartmentId}
              onChange={setOwnDepartmentId}
              disabled={departments.length === 0}
              clearable
              searchable
              error={errors.own_department_id}
            />
          </Card>
          <Card withBorder>
            <Title order={3} fz="md" mb="sm">
              メール通知
            </Title>
            <Stack gap="sm">
              {(Object.keys(notificationLabels) as (keyof NotificationSettings)[]).map((key) => (
                <Switch
                  key={key}
                  label={notificationLabels[key]}
                  description={notificationDescriptions[key]}
                  disabled={key !== 'enabled_notification' && !settings.enabled_notification}
                  checked={settings[key]}
                  onChange={(e) => {
                    const checked = e.currentTarget.checked;
                    setSettings((s) => ({ ...s, [key]: checked }));
                  }}
                  error={errors[`notification_settings.${key}`]}
                  data-setting={key}
                />
              ))}
            </Stack>
          </Card>
          <SaveCancelButtons saving={update.isPending} />
        </Stack>
      </form>
      <UnsavedChangesGuard
        isDirty={() => JSON.stringify(input) !== saved.current}
        description="このページを離れると、保存していない変更（氏名・所属診療科・メール通知）は失われます。"
      />
    </Stack>
  );
}
