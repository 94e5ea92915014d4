import { PrintStyle } from '../../../ui/PrintStyle.tsx';

/**
 * Report tables on paper (a report's page, a dashboard). On screen a wide report scrolls sideways inside
 * its box; on paper that box cut off every column right of the page's width (a monthly report printed
 * April–September and lost October–March and the total). Printed, the box does not scroll or clip, the
 * table takes the page's width, headers and text wrap, the type is smaller, and the header row repeats
 * on each sheet. The toasts of the last action stay off the paper.
 */
const reportPrintCss = `
[data-report-print] .mantine-ScrollArea-viewport { overflow: visible !important; }
[data-report-print] .mantine-ScrollArea-scrollbar { display: none !important; }
[data-report-print] .mantine-TableScrollContainer-scrollContainer { overflow: visible !important; max-height: none !important; }
[data-report-print] .mantine-TableScrollContainer-scrollContainerInner { min-width: 0 !important; }
[data-report-print] th, [data-report-print] td { position: static !important; box-shadow: none !important; }
[data-report-print] table { width: 100% !important; font-size: 8pt; }
[data-report-print] th, [data-report-print] td { white-space: normal !important; min-width: 0 !important; padding: 2px 4px !important; }
[data-report-print] thead { display: table-header-group; position: static !important; }
[data-report-print] tr { break-inside: avoid; }
.mantine-Notifications-root { display: none !important; }
`;

export function ReportPrintStyle({ extra = '' }: { extra?: string }) {
  return <PrintStyle extra={reportPrintCss + extra} />;
}
