import { createFileRoute } from '@tanstack/react-router';
import { FullScreenLoading } from '../frame/FullScreenLoading.tsx';
import { appConfig } from '../app/config.ts';

/** Sign-up from the invitation mail: hands its token to the provider's page that sets the password. */
export const Route = createFileRoute('/accounts/confirmation')({
  staticData: { title: 'アカウント登録' },
  validateSearch: (search: Record<string, unknown>) => ({
    token: typeof search.token === 'string' ? search.token : undefined,
  }),
  beforeLoad: ({ search }) => {
    const url = new URL(appConfig.accountConfirmationUrl, window.location.origin);
    if (search.token) url.searchParams.set('token', search.token);
    window.location.assign(url.toString());
  },
  component: () => <FullScreenLoading message="アカウント登録画面に移動しています" />,
});
