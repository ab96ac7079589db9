import { formatDateTime, isoTime } from '../format.ts';

export function DateTime({ ms, withSeconds = false }: { ms: number; withSeconds?: boolean }) {
  const iso = isoTime(ms);
  const text = formatDateTime(ms, withSeconds);
  // "26 Nov 2026, 22:35 GMT-5": where a table is tight the clock may go under the date, but
  // neither half is ever broken.
  const cut = text.indexOf(', ');
  if (cut < 0)
    return (
      <time dateTime={iso} title={iso}>
        {text}
      </time>
    );
  return (
    <time dateTime={iso} title={iso}>
      <span class="nowrap">{text.slice(0, cut + 1)}</span> <span class="nowrap">{text.slice(cut + 2)}</span>
    </time>
  );
}
