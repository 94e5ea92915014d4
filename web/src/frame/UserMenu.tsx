import { Button, Divider, Paper, Text, UnstyledButton } from '@mantine/core';
import { useClickOutside, useDisclosure } from '@mantine/hooks';
import { Link } from '@tanstack/react-router';
import { useEffect, useRef, type KeyboardEvent, type ReactNode } from 'react';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';

const itemStyle = { display: 'block', width: '100%', padding: '8px 12px', fontSize: 14, borderRadius: 4 } as const;

// A small menu of its own: Mantine's Menu brings the floating-ui positioning engine onto every page.
export function UserMenu({
  user,
  canOpenTenantSettings,
  onLogout,
}: {
  user: SignedInUser;
  canOpenTenantSettings: boolean;
  onLogout: () => void;
}) {
  const [opened, { toggle, close }] = useDisclosure(false);
  const ref = useClickOutside<HTMLDivElement>(close);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const items = () => [...(ref.current?.querySelectorAll<HTMLElement>('[role="menuitem"]') ?? [])];
  // The menu button pattern (WAI-ARIA APG): opening moves the focus to the first item, the arrows move
  // between items, and Escape closes the menu and gives the focus back to its button (it was left on the
  // page's body, and the next Tab started over from the top).
  useEffect(() => {
    if (opened) items()[0]?.focus();
  }, [opened]);
  const onKeyDown = (e: KeyboardEvent) => {
    if (!opened) return;
    if (e.key === 'Escape') {
      close();
      buttonRef.current?.focus();
      return;
    }
    const list = items();
    const at = list.indexOf(document.activeElement as HTMLElement);
    const next =
      e.key === 'ArrowDown'
        ? (at + 1) % list.length
        : e.key === 'ArrowUp'
          ? (at - 1 + list.length) % list.length
          : e.key === 'Home'
            ? 0
            : e.key === 'End'
              ? list.length - 1
              : undefined;
    if (next === undefined || list.length === 0) return;
    e.preventDefault();
    list[next]?.focus();
  };
  const item = (label: string, props: { to?: string; onClick?: () => void; color?: string }): ReactNode =>
    props.to ? (
      <UnstyledButton
        component={Link}
        to={props.to}
        role="menuitem"
        style={itemStyle}
        onClick={close}
        className="renkei-menu-item"
      >
        {label}
      </UnstyledButton>
    ) : (
      <UnstyledButton
        role="menuitem"
        style={{ ...itemStyle, color: props.color }}
        className="renkei-menu-item"
        onClick={() => {
          close();
          props.onClick?.();
        }}
      >
        {label}
      </UnstyledButton>
    );

  return (
    <div
      ref={ref}
      style={{ position: 'relative' }}
      onKeyDown={onKeyDown}
      // Tab out of the menu closes it, as a click outside does. A blur to nothing is left to the click
      // handling: Safari does not focus a clicked link or button, and closing here would swallow the click.
      onBlur={(e) => {
        if (opened && e.relatedTarget && !ref.current?.contains(e.relatedTarget)) close();
      }}
    >
      <Button
        ref={buttonRef}
        variant="subtle"
        color="dark"
        aria-haspopup="menu"
        aria-expanded={opened}
        onClick={toggle}
        data-testid="user-menu"
      >
        {user.name}
      </Button>
      {opened && (
        <Paper
          role="menu"
          aria-label="ユーザーメニュー"
          shadow="md"
          withBorder
          p={4}
          miw={200}
          style={{ position: 'absolute', right: 0, top: '100%', zIndex: 300 }}
        >
          <Text size="xs" c="dimmed" px={12} py={6}>
            {user.tenant.name}
          </Text>
          {item('個人設定', { to: '/profile' })}
          {user.csAccount && canOpenTenantSettings && item('テナント設定', { to: '/tenant_setting' })}
          <Divider my={4} />
          {item('ログアウト', { onClick: onLogout, color: 'var(--mantine-color-red-7)' })}
        </Paper>
      )}
    </div>
  );
}
