// The organization tag: the demo's test IDs and the program's reference keys both carry it.
import { hash128, hex8 } from './hash128.ts';

/**
 * A short, stable hex tag of an organization, used to keep `test_<slug>` IDs globally unique.
 * 48 bits: with the 24 it had, a thousand demo organizations (`cds demo` run for each trial, or
 * bench/memory.ts) had a 3% chance that two shared a tag, and the second one's load then failed
 * on tests.id; now that takes some twenty million.
 */
export function orgTag(organizationId: string): string {
  const [a, b] = hash128(`demo-test-ids|${organizationId}`);
  return hex8(a) + hex8(b).slice(0, 4);
}
