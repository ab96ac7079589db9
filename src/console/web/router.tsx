// A tiny History API router: the console has a few flat routes (and one with an ID, a webhook
// endpoint's page), so a store of the current path is enough and no routing library is worth its bytes.
import type { AnchorHTMLAttributes, TargetedMouseEvent } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const PATHS = {
  signIn: '/console/sign-in',
  credentials: '/console/credentials',
  usage: '/console/usage',
  overview: '/console/overview',
  auditLog: '/console/audit-log',
  webhooks: '/console/webhooks',
  program: '/console/program',
} as const;

/** The page of one webhook endpoint. */
export const webhookEndpointPath = (endpointId: string) => `${PATHS.webhooks}/${encodeURIComponent(endpointId)}`;

/** The endpoint ID in a webhook endpoint page's path, or null when the path is another page's. */
export function webhookEndpointIdOf(path: string): string | null {
  const match = /^\/console\/webhooks\/([^/]+)$/.exec(path);
  if (match === null) return null;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return null;
  }
}

export interface Route {
  path: string;
  /** Changes on every navigation, so a page can react even when the path stays. */
  version: number;
  /** Whether the page should move focus to its heading (user navigation, not redirects). */
  focusHeading: boolean;
}

/** The address bar's path without a trailing slash. */
export function currentPath(): string {
  const path = location.pathname.replace(/\/+$/, '');
  return path === '' ? '/' : path;
}

let route: Route = { path: currentPath(), version: 0, focusHeading: false };
const listeners = new Set<(route: Route) => void>();

function publish(focusHeading: boolean): void {
  route = { path: currentPath(), version: route.version + 1, focusHeading };
  for (const listener of listeners) listener(route);
}

export function navigate(to: string, options: { replace?: boolean; focusHeading?: boolean } = {}): void {
  const url = new URL(to, location.href);
  const here = location.pathname + location.search;
  // Re-selecting the current page only refocuses it; it adds no history entry.
  if (options.replace || url.pathname + url.search === here) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  publish(options.focusHeading ?? true);
}

addEventListener('popstate', () => {
  // A fragment-only change (the skip link without JS) is not a page change.
  if (currentPath() === route.path) return;
  publish(true);
});

export function useRoute(): Route {
  const [value, setValue] = useState(route);
  useEffect(() => {
    listeners.add(setValue);
    // A navigation may have happened between render and subscription.
    if (value !== route) setValue(route);
    return () => {
      listeners.delete(setValue);
    };
  }, []);
  return value;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string };

/** A real link (open in new tab, copy address still work) that routes in-page on a plain click. */
export function Link({ href, onClick, ...rest }: LinkProps) {
  function handleClick(event: TargetedMouseEvent<HTMLAnchorElement>) {
    onClick?.(event);
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  }
  return <a href={href} onClick={handleClick} {...rest} />;
}
