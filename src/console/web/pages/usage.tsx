import { useId } from 'preact/hooks';
import { getUsage } from '../api.ts';
import { PageHeading } from '../components/page-heading.tsx';
import { StatusBadge } from '../components/status-badge.tsx';
import { LoadError, Loading } from '../components/status.tsx';
import { UsageChart } from '../components/usage-chart.tsx';
import { formatCount, formatDateTime, formatHour, timeZoneLabel } from '../format.ts';
import { Link, PATHS } from '../router.tsx';
import type { CredentialUsage } from '../types.ts';
import { useLoad } from '../use-load.tsx';

export function UsagePage() {
  const usage = useLoad(getUsage);
  const data = usage.data;
  return (
    <>
      <PageHeading title="Usage" />
      <p class="lead">API requests per credential over the last 24 hours, by hour. Rate-limited requests were refused with HTTP 429.</p>
      {usage.error !== undefined && <LoadError what="usage" error={usage.error} onRetry={usage.reload} />}
      {data === undefined ? (
        usage.loading && <Loading>Loading usage…</Loading>
      ) : data.credentials.length === 0 ? (
        <p class="empty">
          No credentials yet, so there is no usage to show. <Link href={PATHS.credentials}>Create a credential</Link> to start calling the
          API.
        </p>
      ) : (
        <>
          <p class="muted">
            From {formatDateTime(data.from)} to {formatDateTime(data.to)}. Hours are in {timeZoneLabel(data.to)}.
          </p>
          <div class="card-list">
            {data.credentials.map((credential) => (
              <CredentialUsageCard key={credential.credentialId} bucketMs={data.bucketMs} credential={credential} />
            ))}
          </div>
        </>
      )}
    </>
  );
}

function CredentialUsageCard({ bucketMs, credential }: { bucketMs: number; credential: CredentialUsage }) {
  const headingId = useId();
  const { requests, rateLimited } = credential.totals;
  const summary = `${credential.name}: ${formatCount(requests)} requests, ${formatCount(rateLimited)} rate-limited in the last 24 hours`;
  return (
    <section class="card usage-card" aria-labelledby={headingId}>
      <div class="card-header">
        <h2 id={headingId}>{credential.name}</h2>
        <p class="card-meta">
          <code>{credential.clientId}</code> <StatusBadge status={credential.status} />
        </p>
      </div>
      <p class="totals">
        <span class="nowrap">{formatCount(requests)} requests</span> · <span class="nowrap">{formatCount(rateLimited)} rate-limited</span>
      </p>
      <UsageChart buckets={credential.buckets} bucketMs={bucketMs} label={summary} />
      <div class="chart-footer" aria-hidden="true">
        <span>
          {credential.buckets.length > 0 ? `${formatHour(credential.buckets[0].start)} ${timeZoneLabel(credential.buckets[0].start)}` : ''}
        </span>
        <span>Now</span>
      </div>
      <ul class="legend" aria-label="Legend">
        <li>
          <span class="swatch swatch-requests" aria-hidden="true" />
          Requests
        </li>
        <li>
          <span class="swatch swatch-limited" aria-hidden="true" />
          Rate-limited
        </li>
      </ul>
      {/* Tables ignore overflow: hide a wrapper, not the table itself. */}
      <div class="visually-hidden">
        <table>
          <caption>Requests per hour for {credential.name}</caption>
          <thead>
            <tr>
              <th scope="col">Hour starting</th>
              <th scope="col">Requests</th>
              <th scope="col">Rate-limited</th>
            </tr>
          </thead>
          <tbody>
            {credential.buckets.map((bucket) => (
              <tr key={bucket.start}>
                <th scope="row">{formatDateTime(bucket.start)}</th>
                <td>{formatCount(bucket.requests)}</td>
                <td>{formatCount(bucket.rateLimited)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
