import type { ComponentChildren, TargetedMouseEvent } from 'preact';
import { Link, PATHS } from '../router.tsx';
import type { Session } from '../types.ts';

const NAV_ITEMS = [
  { href: PATHS.credentials, label: 'Credentials' },
  { href: PATHS.webhooks, label: 'Webhooks' },
  { href: PATHS.program, label: 'Program' },
  { href: PATHS.usage, label: 'Usage' },
  { href: PATHS.overview, label: 'Compliance overview' },
  { href: PATHS.auditLog, label: 'Audit log' },
];

interface LayoutProps {
  session: Session;
  path: string;
  onSignOut: () => void;
  signingOut: boolean;
  signOutError: string | null;
  children: ComponentChildren;
}

export function Layout({ session, path, onSignOut, signingOut, signOutError, children }: LayoutProps) {
  // Focus the heading rather than follow "#main", which would put a fragment in the routed URL.
  function skipToContent(event: TargetedMouseEvent<HTMLAnchorElement>) {
    event.preventDefault();
    const target = document.querySelector<HTMLElement>('main h1') ?? document.getElementById('main');
    target?.focus();
    target?.scrollIntoView();
  }

  return (
    <>
      {/* biome-ignore lint/a11y/useValidAnchor: a real link to #main; the handler also moves focus there, which a same-page link does not do in every browser */}
      <a class="skip-link" href="#main" onClick={skipToContent}>
        Skip to content
      </a>
      <header class="site-header">
        <div class="site-header-inner">
          <p class="brand">
            <span class="brand-product">Developer console</span>
            <span class="brand-org">{session.organization.name}</span>
          </p>
          <div class="account">
            <span class="account-email">{session.admin.email}</span>
            <button type="button" class="button-secondary" onClick={onSignOut} aria-busy={signingOut}>
              Sign out
            </button>
          </div>
        </div>
        <nav aria-label="Console" class="site-nav">
          <ul>
            {NAV_ITEMS.map((item) => (
              <li key={item.href}>
                <Link
                  href={item.href}
                  aria-current={item.href === path ? 'page' : path.startsWith(`${item.href}/`) ? 'location' : undefined}
                >
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
      </header>
      {signOutError !== null && (
        <p role="alert" class="banner-error">
          Could not sign out. {signOutError}
        </p>
      )}
      <main id="main" tabIndex={-1}>
        {children}
      </main>
    </>
  );
}
