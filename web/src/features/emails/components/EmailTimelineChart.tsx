import '@mantine/charts/styles.css';
import { LineChart } from '@mantine/charts';
import type { EmailTimeline } from '@renkei/contracts';

/** Japanese time of a bucket: 11/20 09時 by hour, 11/20 by day. */
function bucketLabel(at: string, unit: 'hour' | 'day'): string {
  const jst = new Date(Date.parse(at) + 9 * 3600_000);
  const day = `${jst.getUTCMonth() + 1}/${jst.getUTCDate()}`;
  return unit === 'hour' ? `${day} ${String(jst.getUTCHours()).padStart(2, '0')}時` : day;
}

/** Opens and clicks so far (running totals) from the send on; loaded with the report only (recharts is large). */
export function EmailTimelineChart({ timeline }: { timeline: EmailTimeline }) {
  const data = timeline.data.map((b) => ({
    label: bucketLabel(b.at, b.unit),
    opened: b.opened_total,
    clicked: b.clicked_total,
  }));
  return (
    <LineChart
      h={240}
      data={data}
      dataKey="label"
      series={[
        { name: 'opened', label: '開封（累計）', color: 'teal.6' },
        { name: 'clicked', label: 'クリック（累計）', color: 'blue.6' },
      ]}
      withLegend
      tickLine="y"
      curveType="linear"
      data-testid="email-timeline-chart"
    />
  );
}
