import { createFileRoute } from '@tanstack/react-router';
import { FullScreenLoading } from '../../../frame/FullScreenLoading.tsx';
import { appConfig } from '../../../app/config.ts';

/** Password reset from the mailed link: hands its token to the provider's reset page. */
export const Route = createFileRoute('/user/password/change')({
  staticData: { title: 'パスワード再設定' },
  validateSearch: (search: Record<string, unknown>) => ({
    token: typeof search.token === 'string' ? search.token : undefined,
  }),
  beforeLoad: ({ search }) => {
    const url = new URL(appConfig.passwordResetUrl, window.location.origin);
    if (search.token) url.searchParams.set('token', search.token);
    window.location.assign(url.toString());
  },
  component: () => <FullScreenLoading message="パスワード再設定画面に移動しています" />,
});
