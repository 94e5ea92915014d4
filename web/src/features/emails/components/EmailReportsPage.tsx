import { Alert, Anchor, Group, Loader, Paper, SimpleGrid, Stack, Text, Title } from '@mantine/core';
import { useQuery, useSuspenseQuery } from '@tanstack/react-query';
import { lazy, Suspense } from 'react';
import type { Email, EmailReportFilter } from '@renkei/contracts';
import { useServices } from '../../../app/services-context.tsx';
import { ButtonLink } from '../../medical-institutions/components/router-links.tsx';
import { emailQueries } from '../emails.queries.ts';
import { fileHref } from '../../communications/attachment-files.ts';
import { formatFileSize } from '../file-size.ts';
import { EmailRecipientReports } from './EmailRecipientReports.tsx';
import { EmailDeliveryStoppedAlert } from './EmailDeliveryStoppedAlert.tsx';
import { formatFraction as formatRate } from '../../../ui/percent.ts';

// The chart library (recharts) loads only when a report shows a chart.
const EmailTimelineChart = lazy(() =>
  import('./EmailTimelineChart.tsx').then((m) => ({ default: m.EmailTimelineChart })),
);

function OpensAndClicks({ id }: { id: string }) {
  const { api } = useServices();
  const timeline = useQuery(emailQueries.timeline(api, id));
  const chartFallback = (
    <Group h={240} justify="center">
      <Loader size="sm" />
    </Group>
  );
  return (
    <Paper withBorder p="sm">
      <Text size="sm" fw={600} mb="xs">
        開封・クリックの推移
      </Text>
      {timeline.isPending ? (
        chartFallback
      ) : timeline.isError ? (
        <Text c="red" size="sm">
          推移を読み込めませんでした。
        </Text>
      ) : timeline.data.data.length === 0 ? (
        <Text c="dimmed" size="sm">
          まだ開封・クリックはありません。
        </Text>
      ) : (
        <Suspense fallback={chartFallback}>
          <EmailTimelineChart timeline={timeline.data} />
        </Suspense>
      )}
    </Paper>
  );
}

function Figure({ label, value, rate }: { label: string; value: number; rate?: number | null }) {
  return (
    <Paper withBorder p="sm">
      <Text size="xs" c="dimmed">
        {label}
      </Text>
      <Text fz="xl" fw={700} data-testid={`email-stat-${label}`}>
        {value}
        {rate !== undefined && (
          <Text span size="sm" c="dimmed" ml={6}>
            {formatRate(rate)}
          </Text>
        )}
      </Text>
    </Paper>
  );
}

/** The file sent with every mail: its name opens it (a signed link, valid 30 minutes from loading the page). */
function AttachmentLine({ email }: { email: Email }) {
  const { config } = useServices();
  if (!email.attachment_id) return null;
  return (
    <Text size="sm" data-testid="email-report-attachment">
      添付ファイル：
      {email.attachment_name && email.attachment_url ? (
        <Anchor href={fileHref(config.apiBaseUrl, email.attachment_url)} target="_blank" rel="noopener">
          {email.attachment_name}
        </Anchor>
      ) : (
        <Text span c="dimmed">
          ファイルが見つかりません
        </Text>
      )}
      {email.attachment_size !== null && (
        <Text span size="xs" c="dimmed" ml={6}>
          （{formatFileSize(email.attachment_size)}）
        </Text>
      )}
    </Text>
  );
}

export function EmailReportsPage({
  id,
  page,
  filter,
  onChange,
}: {
  id: string;
  page: number;
  filter: EmailReportFilter | undefined;
  onChange: (next: { page: number; filter: EmailReportFilter | undefined }) => void;
}) {
  const { api } = useServices();
  const { data: email } = useSuspenseQuery(emailQueries.detail(api, id));
  const { data: stats } = useSuspenseQuery(emailQueries.stats(api, id));
  return (
    <Stack gap="lg">
      <Group justify="space-between">
        <Title order={2} fz="xl">
          配信レポート：{email.title}
        </Title>
        <ButtonLink variant="default" to="/emails" search={{ status: 'sent', page: 1, per_page: 20 }}>
          一覧へ戻る
        </ButtonLink>
      </Group>
      <EmailDeliveryStoppedAlert email={email} />
      <AttachmentLine email={email} />
      <SimpleGrid cols={{ base: 2, sm: 5 }}>
        <Figure label="送信先" value={stats.destination_count} />
        <Figure label="無効" value={stats.invalid_destination_count} />
        <Figure label="配信" value={stats.delivered_count} rate={stats.delivered_rate} />
        <Figure label="開封" value={stats.opened_count} rate={stats.opened_rate} />
        <Figure label="クリック" value={stats.clicked_count} rate={stats.clicked_rate} />
      </SimpleGrid>
      <Text size="xs" c="dimmed">
        配信はメールサーバーが受け付け、不達の通知が戻っていないことを表します。開封率・クリック率は配信数に対する割合です（テスト送信は含みません）。
      </Text>
      {stats.in_doubt_count > 0 && (
        <Alert color="orange" title={`配信結果が不明な送信先：${stats.in_doubt_count}件`} data-testid="email-in-doubt">
          送信中にサーバーの障害や再起動があり、その時点で送信中だったメールの配信結果を記録できませんでした。
          これらの送信先には再送しているため、一部の方に同じメールが二重に届いている可能性があります（どの方かはメールサーバーの記録なしには特定できません）。
          一覧の「結果不明」で絞り込めます。配信数には、再送で配信を確認できたものだけを含めています。
        </Alert>
      )}
      <OpensAndClicks id={id} />
      <EmailRecipientReports id={id} page={page} filter={filter} onChange={onChange} />
    </Stack>
  );
}
