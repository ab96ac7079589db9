import { formatCount, formatHour } from '../format.ts';
import type { UsageBucket } from '../types.ts';

const SLOT = 20;
const BAR = 8;
const HEIGHT = 96;

/**
 * Hourly requests and rate-limited requests as paired bars. Sizes are SVG attributes,
 * colours come from classes: the Content-Security-Policy forbids inline styles.
 * role="img" makes the bars one image for assistive technology; the caller supplies
 * the summary label and a table with the same numbers.
 */
export function UsageChart({ buckets, bucketMs, label }: { buckets: UsageBucket[]; bucketMs: number; label: string }) {
  const width = Math.max(buckets.length, 1) * SLOT;
  const peak = buckets.reduce((max, bucket) => Math.max(max, bucket.requests, bucket.rateLimited), 0);
  const barHeight = (value: number) => (peak === 0 || value === 0 ? 0 : Math.max(1, (value / peak) * (HEIGHT - 2)));

  return (
    <svg
      class="usage-chart"
      role="img"
      aria-label={label}
      viewBox={`0 0 ${width} ${HEIGHT + 1}`}
      width={width}
      height={HEIGHT + 1}
      preserveAspectRatio="none"
    >
      {buckets.map((bucket, index) => {
        const x = index * SLOT;
        const requests = barHeight(bucket.requests);
        const limited = barHeight(bucket.rateLimited);
        return (
          <g key={bucket.start}>
            <title>
              {`${formatHour(bucket.start)}–${formatHour(bucket.start + bucketMs)}: ${formatCount(bucket.requests)} requests, ${formatCount(bucket.rateLimited)} rate-limited`}
            </title>
            {/* A transparent full-height rect so hovering anywhere in the hour shows its tooltip. */}
            <rect class="bar-slot" x={x} y={0} width={SLOT} height={HEIGHT} />
            <rect class="bar-requests" x={x + 2} y={HEIGHT - requests} width={BAR} height={requests} />
            <rect class="bar-limited" x={x + 2 + BAR} y={HEIGHT - limited} width={BAR} height={limited} />
          </g>
        );
      })}
      <line class="chart-axis" x1={0} y1={HEIGHT + 0.5} x2={width} y2={HEIGHT + 0.5} />
    </svg>
  );
}
