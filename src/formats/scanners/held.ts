// Items read before what they refer to (a SARIF result before its run's tool, a CycloneDX
// vulnerability before the components it names): kept until it arrives, but never more than a
// bound, so memory stays flat whatever order a file is written in.
import { fileError, type PathPart } from './json-stream.ts';

/** Items held out of order, per file: tools write the referred part first, so this stays empty. */
export const MAX_HELD = 10_000;

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
