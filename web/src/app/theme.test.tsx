import {
  DEFAULT_THEME,
  MantineProvider,
  Modal,
  Notification,
  Pagination,
  type MantineColorsTuple,
} from '@mantine/core';
import { render, screen, within } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { contrastRatio, theme } from './theme.ts';

const colors = { ...DEFAULT_THEME.colors, ...theme.colors } as Record<string, MantineColorsTuple>;
const palettes = Object.entries(colors);

describe('theme', () => {
  it('white text on the primary shade of every color reads at WCAG AA (filled buttons, badges)', () => {
    expect(theme.primaryShade).toMatchObject({ light: 9 });
    const short = palettes.filter(([, t]) => contrastRatio(t[9], '#ffffff') < 4.5).map(([name]) => name);
    expect(short).toEqual([]);
  });

  it('the light variant (shade 9 on shade 1: badges, light buttons, the active menu entry) reads at AA', () => {
    const short = palettes.filter(([, t]) => contrastRatio(t[9], t[1]) < 4.5).map(([name]) => name);
    expect(short).toEqual([]);
  });

  it('dimmed text (gray 6) reads at AA on white and on striped and hovered rows', () => {
    const gray = colors.gray!;
    for (const background of ['#ffffff', gray[0], gray[1]])
      expect(contrastRatio(gray[6], background)).toBeGreaterThanOrEqual(4.5);
  });

  it('names the arrows of every pagination', () => {
    render(
      <MantineProvider theme={theme}>
        <Pagination total={5} value={2} withEdges />
      </MantineProvider>,
    );
    for (const name of ['最初のページ', '前のページ', '次のページ', '最後のページ'])
      expect(screen.getByRole('button', { name })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: '2' })).toHaveAttribute('aria-current', 'page');
  });

  it('names the × of dialogs and toasts', async () => {
    render(
      <MantineProvider theme={theme}>
        <Modal opened onClose={() => {}} title="アカウントを招待">
          本文
        </Modal>
        <Notification title="完了">保存しました</Notification>
      </MantineProvider>,
    );
    const dialog = await screen.findByRole('dialog', { name: 'アカウントを招待' });
    expect(within(dialog).getByRole('button', { name: '閉じる' })).toBeInTheDocument();
    expect(screen.getAllByRole('button', { name: '閉じる' })).toHaveLength(2);
  });
});
