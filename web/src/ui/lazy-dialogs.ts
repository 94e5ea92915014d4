import { lazy } from 'react';

/** The delete confirmation, loaded when a list page first opens it rather than with the list. */
export const LazyConfirmDeleteModal = lazy(() =>
  import('./ConfirmDeleteModal.tsx').then((m) => ({ default: m.ConfirmDeleteModal })),
);
