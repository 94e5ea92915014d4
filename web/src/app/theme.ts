import { createTheme } from '@mantine/core';

export const theme = createTheme({
  primaryColor: 'teal',
  fontFamily: '"Hiragino Kaku Gothic ProN", "Hiragino Sans", "Noto Sans JP", Meiryo, system-ui, sans-serif',
  defaultRadius: 'sm',
});

/** Spec §9 spinner sizes. */
export const spinnerSize = { small: 30, medium: 53.87 } as const;
