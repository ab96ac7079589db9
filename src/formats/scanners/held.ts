// Items read before what they refer to (a SARIF result before its run's tool, a CycloneDX
// vulnerability before the components it names): kept until it arrives, but never more than a
// bound, so memory stays flat whatever order a file is written in.
import { fileError, type PathPart } from './json-stream.ts';

// The bound is the import pipeline's too (it holds findings until the file names its scope).
export { MAX_HELD } from '../../domain/vulnerabilities/scanned-finding.ts';

export class Held<T> {
  private items: T[] = [];
  private readonly limit: number;
  private readonly tooMany: string;
  constructor(limit: number, tooMany: string) {
    this.limit = limit;
    this.tooMany = tooMany;
  }
  hold(item: T, path: readonly PathPart[]): void {
    if (this.items.length >= this.limit) throw fileError(path, this.tooMany);
    this.items.push(item);
  }
  take(): T[] {
    return this.items.splice(0);
  }
  get size(): number {
    return this.items.length;
  }
}
