import { ActionIcon, Anchor, AppShell, Box, Burger, Group, Text } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { Link, Outlet, useMatches, useRouter, useRouterState } from '@tanstack/react-router';
import { Suspense, lazy, useEffect, useMemo, useState } from 'react';
import { useServices } from '../app/services-context.tsx';
import { ErrorPage } from '../errors/ErrorPage.tsx';
import { errorPageStore, useShownError } from '../errors/error-page-store.ts';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';
import { AppFooter } from './AppFooter.tsx';
import { resolveBackLink } from './back-link.ts';
import { visibleMenu } from './menu.ts';
import { isPhoneSupported, resolveLayout } from './page-meta.ts';
import { SideMenu } from './SideMenu.tsx';
import { UserMenu } from './UserMenu.tsx';
import { useViewport } from './use-viewport.ts';

// Only a tenant with a logo loads it (with the file download it needs): the first page's JavaScript
// stays within its 250 KiB budget (docs/benchmarks.md, bench:web).
// Only a phone on a page not made for phones shows the notice (and loads Mantine's Alert for it).
const PhoneUnsupportedNotice = lazy(() =>
  import('./PhoneUnsupportedNotice.tsx').then((m) => ({ default: m.PhoneUnsupportedNotice })),
);
const TenantLogo = lazy(() =>
  import('../features/tenant-settings/components/TenantLogo.tsx').then((m) => ({ default: m.TenantLogo })),
);

/** Spec §9 drawer transition. */
const drawerTransitionMs = 250;

function useRouteAvailable(): (path: string) => boolean {
  const router = useRouter();
  return useMemo(() => {
    const byPath = router.routesByPath as unknown as Record<string, unknown>;
    return (path: string) => path in byPath;
  }, [router]);
}

export function AppFrame({ user }: { user: SignedInUser }) {
  const { config, logout } = useServices();
  const viewport = useViewport();
  const isPhone = viewport === 'phone';
  const [drawerOpened, drawer] = useDisclosure(false);
  // On a tablet (600–1024 px) the 240 px menu took a third of the screen from the page: it starts closed there
  // and open on a desk; once the user toggles it, their choice holds.
  const [collapsedByUser, setCollapsedByUser] = useState<boolean | null>(null);
  const desktopCollapsed = collapsedByUser ?? viewport === 'tablet';
  const location = useRouterState({ select: (s) => s.location });
  const matches = useMatches();
  const shownError = useShownError();
  const isAvailable = useRouteAvailable();
  const router = useRouter();

  const meta = matches[matches.length - 1]?.staticData;
  const layout = resolveLayout(meta);
  const kind = isPhone ? layout.phone : layout.desktop;
  const sticky = isPhone ? layout.stickyHeader.phone : layout.stickyHeader.desktop;
  const entries = useMemo(() => visibleMenu(user, isAvailable), [user, isAvailable]);
  const menuOpened = isPhone ? drawerOpened : !desktopCollapsed;
  const backLink = resolveBackLink(location.pathname, location.search as Record<string, unknown>);

  const closeDrawer = drawer.close;
  useEffect(() => {
    // Navigation closes the drawer and leaves any error page behind.
    closeDrawer();
    errorPageStore.clear();
  }, [location.pathname, closeDrawer]);

  const notice = shownError ? (
    <ErrorPage status={shownError.status} subCode={shownError.subCode} />
  ) : isPhone && !isPhoneSupported(location.pathname) ? (
    <Suspense fallback={null}>
      <PhoneUnsupportedNotice />
    </Suspense>
  ) : null;
  // The page stays mounted, only hidden, under a notice: a viewport that briefly narrows (a tablet turned,
  // a window resized, a full-page screenshot) must not remount it and lose a half-filled form or dialog.
  const content = (
    <>
      {notice}
      <div style={notice ? { display: 'none' } : undefined} data-testid="page-outlet">
        <Outlet />
      </div>
    </>
  );

  if (kind === 'none') return <main>{content}</main>;

  return (
    <AppShell
      mode={sticky ? 'fixed' : 'static'}
      transitionDuration={drawerTransitionMs}
      header={{ height: isPhone ? 48 : 56 }}
      // A phone's screen is too small for a bar that never scrolls away: there the links end the page.
      footer={isPhone ? undefined : { height: 36 }}
      navbar={{ width: 240, breakpoint: 600, collapsed: { mobile: !drawerOpened, desktop: desktopCollapsed } }}
      padding={kind === 'padded' ? 'md' : 0}
    >
      <AppShell.Header>
        {/* The first stop of Tab: past the header and the menu's twenty entries straight to the page. */}
        <a
          href="#main-content"
          className="renkei-skip-link"
          onClick={(e) => {
            e.preventDefault();
            document.getElementById('main-content')?.focus();
          }}
        >
          本文へ移動
        </a>
        <Group h="100%" px="sm" justify="space-between" wrap="nowrap">
          <Group gap="xs" wrap="nowrap">
            {isPhone ? (
              <Burger
                opened={drawerOpened}
                onClick={drawer.toggle}
                size="sm"
                // The lines stay small; the tap area is a thumb's 44 px.
                w={44}
                h={44}
                p={13}
                aria-label="メニューを開く"
                aria-expanded={drawerOpened}
                aria-controls="side-menu"
                data-testid="drawer-toggle"
              />
            ) : (
              <Burger
                opened={!desktopCollapsed}
                onClick={() => setCollapsedByUser(!desktopCollapsed)}
                size="sm"
                aria-label="メニューの表示切り替え"
                aria-expanded={!desktopCollapsed}
                aria-controls="side-menu"
                data-testid="menu-collapse"
              />
            )}
            {isPhone && backLink && (
              <ActionIcon
                component="a"
                href={`/app${backLink}`}
                onClick={(e: React.MouseEvent) => {
                  e.preventDefault();
                  void router.navigate({ href: backLink });
                }}
                variant="subtle"
                size="xl"
                aria-label="戻る"
                data-testid="back-link"
              >
                ‹
              </ActionIcon>
            )}
            <Anchor
              component={Link}
              to="/login"
              underline="never"
              c="teal.9"
              fw={700}
              fz={isPhone ? 'md' : 'lg'}
              data-testid="logo"
            >
              Renkei
              {!isPhone && (
                <Text span c="dimmed" fz="xs" ml={6}>
                  連携
                </Text>
              )}
            </Anchor>
            {!isPhone && user.tenant.logo && (
              <Suspense fallback={null}>
                <TenantLogo logo={user.tenant.logo} alt={user.tenant.name} height={32} />
              </Suspense>
            )}
          </Group>
          <UserMenu user={user} canOpenTenantSettings={isAvailable('/tenant_setting')} onLogout={() => void logout()} />
        </Group>
      </AppShell.Header>
      {/* A closed menu only slides out of view: inert keeps its entries out of the Tab order and the screen
          reader's reading, or a keyboard user walks through twenty invisible links before reaching the page. */}
      <AppShell.Navbar p="xs" id="side-menu" data-testid="side-menu" data-opened={menuOpened} inert={!menuOpened}>
        <SideMenu
          entries={entries}
          pathname={location.pathname}
          supportUrl={config.supportUrl}
          onNavigate={drawer.close}
        />
      </AppShell.Navbar>
      <AppShell.Main id="main-content" tabIndex={-1} style={{ outline: 'none' }}>
        {content}
        {isPhone && (
          <Box component="footer" mt="xl" py="xs" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
            <AppFooter privacyPolicyUrl={config.privacyPolicyUrl} cookiePolicyUrl={config.cookiePolicyUrl} />
          </Box>
        )}
      </AppShell.Main>
      {!isPhone && (
        <AppShell.Footer>
          <AppFooter privacyPolicyUrl={config.privacyPolicyUrl} cookiePolicyUrl={config.cookiePolicyUrl} />
        </AppShell.Footer>
      )}
    </AppShell>
  );
}
