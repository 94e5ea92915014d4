import { NavLink, Stack } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import { useState } from 'react';
import type { MenuEntry } from './menu.ts';

// Mantine's 8 px made every entry 41 px: on a 1366×768 or 1280×800 laptop screen the last entries (data sync
// status, data uploads) sat below the fold of a menu whose scroll bar only shows on hover.
const entryPaddingBlock = 5;

function isActive(entry: MenuEntry, pathname: string): boolean {
  const paths = [entry.to, ...(entry.alsoActiveOn ?? []), ...(entry.children ?? []).map((c) => c.to)];
  return paths.some((p) => pathname === p || pathname.startsWith(`${p}/`));
}

/** An entry that opens a page (a top-level one without children, or a child). */
function MenuLink({ entry, pathname, onNavigate }: { entry: MenuEntry; pathname: string; onNavigate: () => void }) {
  return (
    <NavLink
      component={Link}
      to={entry.to}
      label={entry.label}
      active={isActive(entry, pathname)}
      onClick={onNavigate}
      py={entryPaddingBlock}
      data-menu-key={entry.key}
    />
  );
}

/**
 * An entry that only opens its children. Mantine draws it as an `<a>` without `href`, which Tab skips: a
 * keyboard user could never reach the reports. A button is focusable, and says whether it is open.
 */
function MenuGroup({ entry, pathname, onNavigate }: { entry: MenuEntry; pathname: string; onNavigate: () => void }) {
  const [opened, setOpened] = useState(() => isActive(entry, pathname));
  return (
    <NavLink
      component="button"
      type="button"
      label={entry.label}
      opened={opened}
      onChange={setOpened}
      aria-expanded={opened}
      py={entryPaddingBlock}
      data-menu-key={entry.key}
    >
      {(entry.children ?? []).map((child) => (
        <MenuLink key={child.key} entry={child} pathname={pathname} onNavigate={onNavigate} />
      ))}
    </NavLink>
  );
}

export function SideMenu({
  entries,
  pathname,
  supportUrl,
  onNavigate,
}: {
  entries: MenuEntry[];
  pathname: string;
  supportUrl: string;
  onNavigate: () => void;
}) {
  return (
    <Stack gap={0} h="100%" component="nav" aria-label="メインメニュー">
      <div style={{ flex: 1, overflowY: 'auto' }}>
        {entries.map((entry) =>
          entry.children ? (
            <MenuGroup key={entry.key} entry={entry} pathname={pathname} onNavigate={onNavigate} />
          ) : (
            <MenuLink key={entry.key} entry={entry} pathname={pathname} onNavigate={onNavigate} />
          ),
        )}
      </div>
      <NavLink
        component="a"
        href={supportUrl}
        target="_blank"
        rel="noopener noreferrer"
        label="サポートページ"
        py={entryPaddingBlock}
        data-menu-key="Support"
      />
    </Stack>
  );
}
