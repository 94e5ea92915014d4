import { Button, Center, Stack, Text, Title } from '@mantine/core';
import { useEffect } from 'react';
import { useServices } from '../app/services-context.tsx';
import { describeError } from './error-catalogue.ts';
import { networkSubCode } from '../api/api-errors.ts';
import { documentTitle } from '../frame/page-meta.ts';

const topPageHref = '/app/';

/** Spec §2/§8 error page. Its button signs out first for a 403, and for a 401 with an active account. */
export function ErrorPage({ status, subCode }: { status: number; subCode?: string }) {
  const { auth, logout } = useServices();
  const d = describeError(status, subCode);

  useEffect(() => {
    document.title = documentTitle(d.summary);
  }, [d.summary]);

  const onTop = async () => {
    if (d.status === 403 || (d.status === 401 && auth.activeAccount())) {
      await logout();
      return;
    }
    window.location.assign(topPageHref);
  };

  return (
    <Center mih="60vh" p="lg" data-testid="error-page" data-status={d.status}>
      <Stack align="center" gap="md" maw={560}>
        <Title order={1} fz={64} c="dimmed">
          {d.status}
        </Title>
        <Title order={2} fz="xl" ta="center">
          {d.summary}
        </Title>
        <Text ta="center">{d.description}</Text>
        {subCode === networkSubCode ? (
          // The same page again once there is a network: the draft of a record is kept in the browser anyway.
          <Button onClick={() => window.location.reload()}>再読み込み</Button>
        ) : (
          <Button onClick={() => void onTop()}>TOPページに戻る</Button>
        )}
      </Stack>
    </Center>
  );
}
