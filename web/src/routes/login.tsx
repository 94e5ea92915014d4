import { createFileRoute, redirect } from '@tanstack/react-router';
import { FullScreenLoading } from '../frame/FullScreenLoading.tsx';

/** Starts the provider's sign-in; an account already signed in goes to its top page. */
export const Route = createFileRoute('/login')({
  staticData: { title: 'ログイン' },
  beforeLoad: async ({ context }) => {
    await context.auth.start();
    if (context.auth.activeAccount()) throw redirect({ to: '/', replace: true });
    await context.auth.login(`${window.location.origin}/app/`);
  },
  component: () => <FullScreenLoading message="ログイン画面に移動しています" />,
});
