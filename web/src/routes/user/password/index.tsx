import { createFileRoute } from '@tanstack/react-router';
import { FullScreenLoading } from '../../../frame/FullScreenLoading.tsx';
import { appConfig } from '../../../app/config.ts';

/** Forgot password: the provider's own (Renkei-styled, Japanese) flow. */
export const Route = createFileRoute('/user/password/')({
  staticData: { title: 'パスワードをお忘れの方' },
  beforeLoad: () => {
    window.location.assign(appConfig.passwordForgotUrl);
  },
  component: () => <FullScreenLoading message="パスワード再設定画面に移動しています" />,
});
