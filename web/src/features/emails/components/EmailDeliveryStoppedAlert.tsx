import { Alert, Button, Code, Group, Stack, Text } from '@mantine/core';
import { useNavigate } from '@tanstack/react-router';
import type { Email } from '@renkei/contracts';
import { formatDateTime } from '../../../app/dates.ts';
import { toast } from '../../../app/toast.ts';
import { useMutationErrorHandler } from '../../../errors/useMutationErrorHandler.ts';
import { useCopyEmail, useResumeEmailSend } from '../emails.queries.ts';

type Stop = NonNullable<Email['delivery_stopped']>;

/** What happened and what the sender can do, per reason (docs/decisions.md "Parked email sends"). */
const explanations: Record<Stop['reason'], { what: string; todo: string }> = {
  attachment_missing: {
    what: '添付ファイルが見つからないため、送信を止めています。まだどの送信先にも送られていません。',
    todo: '「複製して添付し直す」で同じ内容のメールを作り、添付ファイルを選び直して送信してください。システム管理者がファイルを復旧した場合は「送信を再開する」で送れます。',
  },
  delivery_failed: {
    what: 'メールサーバーへの送信が繰り返し失敗したため、送信を止めています。送信済みの送信先には、再開しても二重に送られません。',
    todo: '時間をおいて「送信を再開する」を押すと、残りの送信先への送信をやり直します。何度も止まる場合は、下のエラー内容をシステム管理者にお伝えください。',
  },
};

/** A campaign whose send the worker stopped: the reason, the technical error, and the ways on. */
export function EmailDeliveryStoppedAlert({ email }: { email: Email }) {
  const stop = email.delivery_stopped;
  const resume = useResumeEmailSend();
  const copy = useCopyEmail();
  const navigate = useNavigate();
  const onError = useMutationErrorHandler();
  if (!stop) return null;
  const { what, todo } = explanations[stop.reason];

  const onResume = async () => {
    try {
      await resume.mutateAsync({ id: email.id });
      toast.success('送信を再開しました。残りの送信先に順に送ります。');
    } catch (error) {
      onError(error);
    }
  };
  const onCopy = async () => {
    try {
      const copied = await copy.mutateAsync({ id: email.id });
      toast.success('メールを複製しました。添付ファイルを選び直してください。');
      void navigate({ to: '/emails/$id/edit', params: { id: copied.id } });
    } catch (error) {
      onError(error);
    }
  };

  return (
    <Alert color="red" title="このメールの送信は止まっています" data-testid="email-delivery-stopped">
      <Stack gap="xs">
        <Text size="sm">{what}</Text>
        <Text size="sm">{todo}</Text>
        <Text size="xs" c="dimmed">
          停止日時：{formatDateTime(stop.stopped_at)}
        </Text>
        <Text size="xs" c="dimmed" component="div">
          エラー内容：
          <Code block data-testid="email-delivery-stopped-error">
            {stop.error}
          </Code>
        </Text>
        <Group gap="xs">
          <Button size="xs" color="red" onClick={() => void onResume()} loading={resume.isPending}>
            送信を再開する
          </Button>
          {stop.reason === 'attachment_missing' && (
            <Button size="xs" variant="default" onClick={() => void onCopy()} loading={copy.isPending}>
              複製して添付し直す
            </Button>
          )}
        </Group>
      </Stack>
    </Alert>
  );
}
