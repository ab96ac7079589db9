import { formatDateTime, isoTime } from '../format.ts';

export function DateTime({ ms, withSeconds = false }: { ms: number; withSeconds?: boolean }) {
  const iso = isoTime(ms);
  return (
    <time dateTime={iso} title={iso}>
      {formatDateTime(ms, withSeconds)}
    </time>
  );
}
