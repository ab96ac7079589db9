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
/** The smallest of 1, 2, 5, 10, 20, 50, … at or above `value`: the top of the scale. */
export function scaleTop(value: number): number {
  if (value <= 1) return 1;
  const power = 10 ** Math.floor(Math.log10(value));
  for (const step of [1, 2, 5, 10]) if (step * power >= value) return step * power;
  return 10 * power;
}

export function UsageChart({ buckets, bucketMs, label }: { buckets: UsageBucket[]; bucketMs: number; label: string }) {
  const width = Math.max(buckets.length, 1) * SLOT;
  const peak = buckets.reduce((max, bucket) => Math.max(max, bucket.requests, bucket.rateLimited), 0);
  // Bars are drawn against a round scale (0 to top, labelled at the side), so their heights read as numbers.
  const top = scaleTop(peak);
  const barHeight = (value: number) => (value === 0 ? 0 : Math.max(1, (value / top) * HEIGHT));
  const middle = top / 2;

  return (
    <div class="chart-with-scale">
      {/* The numbers are in the image's label and the table beside it; this scale is for the eye. */}
      <div class="chart-scale" aria-hidden="true" data-testid="chart-scale">
        <span>{formatCount(top)}</span>
        <span>{Number.isInteger(middle) ? formatCount(middle) : ''}</span>
        <span>0</span>
      </div>
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
        <line class="chart-grid" x1={0} y1={0.5} x2={width} y2={0.5} />
        <line class="chart-grid" x1={0} y1={HEIGHT / 2} x2={width} y2={HEIGHT / 2} />
        <line class="chart-axis" x1={0} y1={HEIGHT + 0.5} x2={width} y2={HEIGHT + 0.5} />
      </svg>
    </div>
  );
}
