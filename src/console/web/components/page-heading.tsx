import { useEffect, useRef } from 'preact/hooks';
import { useRoute } from '../router.tsx';

/**
 * The page's single h1. After an in-app navigation focus moves here, so keyboard and
 * screen-reader users start at the top of the new page as they would after a page load.
 */
export function PageHeading({ title }: { title: string }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const route = useRoute();
  useEffect(() => {
    document.title = `${title} · Developer console`;
  }, [title]);
  useEffect(() => {
    if (route.focusHeading) heading.current?.focus();
  }, [route.version]);
  return (
    <h1 ref={heading} tabIndex={-1}>
      {title}
    </h1>
  );
}
