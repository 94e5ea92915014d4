import { Button, type MantineSize } from '@mantine/core';
import { useLocation, useRouter } from '@tanstack/react-router';
import { resolveBackLink } from './back-link.ts';

/**
 * The spec's back link (§2 back-link rules, or an explicit `backLink`) as a page-header button on a desktop;
 * a phone shows the frame's own back link in the header instead. Nothing when the page has no way back.
 */
export function BackLinkButton({ label, size }: { label: string; size?: MantineSize }) {
  const location = useLocation();
  const router = useRouter();
  const href = resolveBackLink(location.pathname, location.search as Record<string, unknown>);
  if (!href) return null;
  return (
    <Button
      component="a"
      href={`/app${href}`}
      onClick={(e: React.MouseEvent) => {
        e.preventDefault();
        void router.navigate({ href });
      }}
      variant="default"
      size={size}
      visibleFrom="sm"
      data-testid="page-back-link"
    >
      {label}
    </Button>
  );
}
