import { NavLink, Stack } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { MenuEntry } from './menu.ts';

function isActive(entry: MenuEntry, pathname: string): boolean {
  const paths = [entry.to, ...(entry.alsoActiveOn ?? []), ...(entry.children ?? []).map((c) => c.to)];
  return paths.some((p) => pathname === p || pathname.startsWith(`${p}/`));
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
            <NavLink
              key={entry.key}
              label={entry.label}
              defaultOpened={isActive(entry, pathname)}
              data-menu-key={entry.key}
            >
              {entry.children.map((child) => (
                <NavLink
                  key={child.key}
                  component={Link}
                  to={child.to}
                  label={child.label}
                  active={isActive(child, pathname)}
                  onClick={onNavigate}
                  data-menu-key={child.key}
                />
              ))}
            </NavLink>
          ) : (
            <NavLink
              key={entry.key}
              component={Link}
              to={entry.to}
              label={entry.label}
              active={isActive(entry, pathname)}
              onClick={onNavigate}
              data-menu-key={entry.key}
            />
          ),
        )}
      </div>
      <NavLink
        component="a"
        href={supportUrl}
        target="_blank"
        rel="noopener noreferrer"
        label="サポートページ"
        data-menu-key="Support"
      />
    </Stack>
  );
}
