import { Button, Menu } from '@mantine/core';
import { Link } from '@tanstack/react-router';
import type { SignedInUser } from '../features/current-user/signed-in-user.ts';

export function UserMenu({
  user,
  canOpenTenantSettings,
  onLogout,
}: {
  user: SignedInUser;
  canOpenTenantSettings: boolean;
  onLogout: () => void;
}) {
  return (
    <Menu position="bottom-end" withinPortal>
      <Menu.Target>
        <Button variant="subtle" color="dark" data-testid="user-menu">
          {user.name}
        </Button>
      </Menu.Target>
      <Menu.Dropdown>
        <Menu.Label>{user.tenant.name}</Menu.Label>
        <Menu.Item component={Link} to="/profile">
          個人設定
        </Menu.Item>
        {user.csAccount && canOpenTenantSettings && (
          <Menu.Item component={Link} to="/tenant_setting">
            テナント設定
          </Menu.Item>
        )}
        <Menu.Divider />
        <Menu.Item color="red" onClick={onLogout}>
          ログアウト
        </Menu.Item>
      </Menu.Dropdown>
    </Menu>
  );
}
