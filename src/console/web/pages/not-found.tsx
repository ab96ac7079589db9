import { PageHeading } from '../components/page-heading.tsx';
import { Link, PATHS } from '../router.tsx';

export function NotFoundPage() {
  return (
    <>
      <PageHeading title="Page not found" />
      <p>
        There is no console page at this address. Go to <Link href={PATHS.credentials}>Credentials</Link>.
      </p>
    </>
  );
}
