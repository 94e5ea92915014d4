import { createFileRoute } from '@tanstack/react-router';
import { z } from 'zod';
import { FullScreenLoading } from '../../../frame/FullScreenLoading.tsx';
import { appConfig } from '../../../app/config.ts';

/** Password reset from the mailed link: hands its token to the provider's reset page. */
export const Route = createFileRoute('/user/password/change')({
  staticData: { title: 'パスワード再設定' },
  validateSearch: z.object({ token: z.string().optional() }),
  beforeLoad: ({ search }) => {
    const url = new URL(appConfig.passwordResetUrl, window.location.origin);
    if (search.token) url.searchParams.set('token', search.token);
    window.location.assign(url.toString());
  },
  component: () => <FullScreenLoading message="パスワード再設定画面に移動しています" />,
});
