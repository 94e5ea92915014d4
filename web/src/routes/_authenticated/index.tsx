import { createFileRoute, redirect } from '@tanstack/react-router';
import { topPagePath, viewportOf } from '../../frame/menu.ts';

/** `/` is never a page of its own: it sends the account to its top page. */
export const Route = createFileRoute('/_authenticated/')({
  beforeLoad: ({ context }) => {
    throw redirect({
      to: topPagePath(context.user, viewportOf(window.innerWidth), context.isRouteAvailable),
      replace: true,
    });
  },
});
