// "Did you mean …?" for a mistyped command or flag: the known name within two edits (or that the
// typed word begins), nearest first.
export function didYouMean(typed: string, known: readonly string[]): string {
  const best = closest(typed, known);
  return best === undefined ? '' : ` Did you mean "${best}"?`;
}

export function closest(typed: string, known: readonly string[]): string | undefined {
  const word = typed.toLowerCase();
  let best: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = name.startsWith(word) && word.length > 1 ? 1 : editDistance(word, name.toLowerCase());
    if (distance <= 2 && distance < word.length && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/** Levenshtein distance: insertions, deletions and substitutions, one each. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
