import { useId } from 'preact/hooks';
import { getOverview } from '../api.ts';
import { PageHeading } from '../components/page-heading.tsx';
import { ProgressRow } from '../components/progress-row.tsx';
import { LoadError, Loading } from '../components/status.tsx';
import type { FrameworkProgress } from '../types.ts';
import { useLoad } from '../use-load.tsx';

export function OverviewPage() {
  const overview = useLoad(getOverview);
  return (
    <>
      <PageHeading title="Compliance overview" />
      <p class="lead">Progress of each framework your organization follows, as the API reports it.</p>
      {overview.error !== undefined && <LoadError what="the compliance overview" error={overview.error} onRetry={overview.reload} />}
      {overview.data === undefined ? (
        overview.loading && <Loading>Loading the compliance overview…</Loading>
      ) : overview.data.frameworks.length === 0 ? (
        <p class="empty">No frameworks yet. Frameworks appear here once your organization adopts one.</p>
      ) : (
        <div class="card-grid">
          {overview.data.frameworks.map((framework) => (
            <FrameworkCard key={framework.frameworkId} framework={framework} />
          ))}
        </div>
      )}
    </>
  );
}

function FrameworkCard({ framework }: { framework: FrameworkProgress }) {
  const headingId = useId();
  const { controls, policies, evidence, tests } = framework.complianceProgress;
  return (
    <section class="card" aria-labelledby={headingId}>
      <h2 id={headingId}>{framework.frameworkName}</h2>
      <ProgressRow label="Controls" done={controls.compliant} total={controls.total} percentage={controls.percentage} />
      <ProgressRow label="Policies" done={policies.published} total={policies.total} percentage={policies.percentage} />
      <ProgressRow label="Evidence" done={evidence.uploaded} total={evidence.total} percentage={evidence.percentage} />
      <ProgressRow label="Tests" done={tests.passing} total={tests.total} percentage={tests.percentage} />
    </section>
  );
}
