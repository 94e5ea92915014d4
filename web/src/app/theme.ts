import {
  Badge,
  createTheme,
  darken,
  DEFAULT_THEME,
  Drawer,
  InputPlaceholder,
  Modal,
  Notification,
  Pagination,
  type MantineColorsTuple,
  type PaginationProps,
} from '@mantine/core';

/** WCAG 2 relative luminance of a `#rrggbb` color. */
function relativeLuminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => {
    const v = parseInt(hex.slice(i, i + 2), 16) / 255;
    return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}

export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

const toHex = (color: string): string => {
  if (color.startsWith('#')) return color;
  const [r, g, b] = (color.match(/[\d.]+/g) ?? []).map(Number);
  return `#${[r, g, b]
    .map((v) =>
      Math.round(v ?? 0)
        .toString(16)
        .padStart(2, '0'),
    )
    .join('')}`;
};

/** WCAG AA for normal text. */
const minTextContrast = 4.5;

/**
 * Shade 9 is the primary shade (filled buttons with white text, links, outline and `c="teal"` text) and
 * the text of the light variant on shade 1 (badges, light buttons, the active menu entry). Mantine's
 * teal, green, lime, yellow, orange and red fall short of AA there (teal 9 on teal 1: 4.33; white on the
 * old primary, teal 6: 2.55), so shade 9 is darkened until it reads on both white and shade 1.
 */
function readablePalette(tuple: MantineColorsTuple): MantineColorsTuple {
  let shade9 = tuple[9];
  for (let i = 0; i < 20; i++) {
    if (contrastRatio(shade9, '#ffffff') >= minTextContrast && contrastRatio(shade9, tuple[1]) >= minTextContrast + 0.1)
      break;
    shade9 = toHex(darken(shade9, 0.05));
  }
  return [...tuple.slice(0, 9), shade9] as unknown as MantineColorsTuple;
}

const colors = Object.fromEntries(
  Object.entries(DEFAULT_THEME.colors).map(([name, tuple]) => [name, readablePalette(tuple)]),
) as Record<string, MantineColorsTuple>;
// `c="dimmed"` is gray 6 (#868e96: 3.32 on white): secondary text everywhere, totals, captions, hints. This
// gray reads at AA on white and on the gray 0/1 of striped and hovered table rows.
colors.gray = [...colors.gray!.slice(0, 6), '#636b73', ...colors.gray!.slice(7)] as unknown as MantineColorsTuple;

const paginationControlLabels = {
  first: '最初のページ',
  previous: '前のページ',
  next: '次のページ',
  last: '最後のページ',
} as const;

export const theme = createTheme({
  primaryColor: 'teal',
  primaryShade: { light: 9, dark: 8 },
  colors,
  fontFamily: '"Hiragino Kaku Gothic ProN", "Hiragino Sans", "Noto Sans JP", Meiryo, system-ui, sans-serif',
  defaultRadius: 'sm',
  components: {
    // A badge's label is cut with an ellipsis when its box is narrower than the text, and a table's
    // automatic layout gives a cell of badges its min-content width: a status or tag read 「完…」「在…」.
    // A badge is a word or two; it keeps its whole width and the column grows.
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
    // A file picker's 「ファイルを選択」 is its only visible prompt, drawn as text (not a placeholder
    // attribute): gray 5 on white is 2.07.
    InputPlaceholder: InputPlaceholder.extend({ styles: { placeholder: { color: 'var(--mantine-color-dimmed)' } } }),
    // A dialog's and a toast's × is an icon only: without a name a screen reader says "button".
    Modal: Modal.extend({ defaultProps: { closeButtonProps: { 'aria-label': '閉じる' } } }),
    Drawer: Drawer.extend({ defaultProps: { closeButtonProps: { 'aria-label': '閉じる' } } }),
    Notification: Notification.extend({ defaultProps: { closeButtonProps: { 'aria-label': '閉じる' } } }),
    // The arrows are icons only: without a name a screen reader announces "button" for each of them.
    Pagination: Pagination.extend({
      defaultProps: {
        getControlProps: ((control) => ({
          'aria-label': paginationControlLabels[control],
        })) satisfies PaginationProps['getControlProps'],
      },
    }),
  },
});

/** Spec §9 spinner sizes. */
export const spinnerSize = { small: 30, medium: 53.87 } as const;
