import { Badge, createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'teal',
  fontFamily: '"Hiragino Kaku Gothic ProN", "Hiragino Sans", "Noto Sans JP", Meiryo, system-ui, sans-serif',
  defaultRadius: 'sm',
  components: {
    // A badge's label is cut with an ellipsis when its box is narrower than the text, and a table's
    // automatic layout gives a cell of badges its min-content width: a status or tag read 「完…」「在…」.
    // A badge is a word or two; it keeps its whole width and the column grows.
    Badge: Badge.extend({ styles: { root: { minWidth: 'max-content' } } }),
  },
});

/** Spec §9 spinner sizes. */
export const spinnerSize = { small: 30, medium: 53.87 } as const;
