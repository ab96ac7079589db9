// How a file shows which format it is: top-level members that only one format writes (each format's
// `signatures`, in its folder). A parser that meets another format's member at the top level stops
// there, naming the format the file looks like, instead of reading on and reporting missing fields
// at the end. The registry (./formats.ts) builds each format's checks with every format's signatures.
import type { FileTop, ScannerFormatDescription } from './contract.ts';
import { fileError, type PathPart } from './json-stream.ts';

type Described = Pick<ScannerFormatDescription, 'name' | 'label' | 'signatures'>;

/** The checks of the top of a file read as `format`, among `all` the formats. */
export function fileTop(format: Described, all: readonly Described[]): FileTop {
  /** Refuses a top-level member that belongs to another format than `format`. */
  const checkTopLevelKey = (key: PathPart) => {
    if (typeof key !== 'string' || format.signatures.includes(key)) return;
    const other = all.find((f) => f.name !== format.name && f.signatures.includes(key));
    if (other)
      throw fileError(
        [key],
        `expected ${format.label}, but the file has “${key}”, so it looks like ${other.label}: send it with format ${other.name}`,
      );
  };
  return {
    plan(path, kind) {
      if (path.length === 0) {
        // The top of the file must be an object.
        if (kind !== 'object') throw fileError([], `expected ${format.label} (a JSON object), found ${kind === 'array' ? 'a list' : kind}`);
        return 'walk';
      }
      if (path.length === 1) checkTopLevelKey(path[0] as PathPart);
      return undefined;
    },
    missing: (key) => fileError([key], `expected ${format.label}, which has “${key}”; the file has none`),
  };
}
