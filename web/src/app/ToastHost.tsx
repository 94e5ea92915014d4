import { lazy, Suspense } from 'react';
import { useToastHostNeeded } from './toast.ts';

const Notifications = lazy(() => import('@mantine/notifications').then((m) => ({ default: m.Notifications })));

export function ToastHost() {
  const needed = useToastHostNeeded();
  if (!needed) return null;
  return (
    <Suspense fallback={null}>
      <Notifications position="top-right" />
    </Suspense>
  );
}
