import { createTheme, Tooltip } from '@mantine/core';

/**
 * For a test that reads a tooltip: Mantine hides a tooltip whose trigger floating-ui finds clipped
 * (`hideDetached`), and jsdom, which lays nothing out, makes every trigger look clipped once the
 * position is computed. Whether a test's look came before or after that computation depended on the
 * machine's load, so such tests failed at random; without it the tooltip is simply shown.
 */
export const tooltipTestTheme = createTheme({
  components: { Tooltip: Tooltip.extend({ defaultProps: { hideDetached: false } }) },
});
