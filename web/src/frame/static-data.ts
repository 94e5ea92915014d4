import type { PageMeta } from './page-meta.ts';

declare module '@tanstack/react-router' {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- module augmentation merges PageMeta in
  interface StaticDataRouteOption extends PageMeta {}
}
