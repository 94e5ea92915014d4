/**
 * A page that prints: the frame (header, side menu, footer) and every element marked `data-print-hide`
 * (buttons, tabs, pagination) are left off the paper, and the page uses its whole width.
 */
export function PrintStyle({ extra = '' }: { extra?: string }) {
  return (
    <style>{`
@media print {
  .mantine-AppShell-header, .mantine-AppShell-navbar, .mantine-AppShell-footer, [data-print-hide] { display: none !important; }
  .mantine-AppShell-main { padding: 0 !important; min-height: 0 !important; }
  body { background: #fff !important; -webkit-print-color-adjust: exact; print-color-adjust: exact; }
  ${extra}
}`}</style>
  );
}
