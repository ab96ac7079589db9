import { useId } from 'preact/hooks';
import { formatCount } from '../format.ts';

export function ProgressRow({ label, done, total, percentage }: { label: string; done: number; total: number; percentage: number }) {
  const id = useId();
  const textId = useId();
  const value = Math.min(100, Math.max(0, percentage));
  return (
    <div class="progress-row">
      <label for={id}>{label}</label>
      <progress id={id} max={100} value={value} aria-describedby={textId}>
        {value}%
      </progress>
      <span id={textId} class="progress-text">
        {formatCount(done)} of {formatCount(total)} · {value}%
      </span>
    </div>
  );
}
