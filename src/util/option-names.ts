/**
 * Option names checked where options come in: a key nobody reads is refused with a message that
 * names it, says what is taken instead, and suggests the nearest name for a typo. Every layer
 * checks its options this way, so nothing given is silently dropped.
 */

/** The allowed name nearest to a typo, within two edits (case does not count), if any. */
export function closestName(word: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = 3;
  for (const candidate of candidates) {
    const distance = editDistance(word.toLowerCase(), candidate.toLowerCase());
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** ` (did you mean "x"?)` for a near miss, else nothing. */
export function didYouMean(word: string, candidates: Iterable<string>): string {
  const guess = closestName(word, candidates);
  return guess === undefined ? "" : ` (did you mean "${guess}"?)`;
}

/** The first key of `given` that is not in `allowed`, if any. */
export function firstUnknownKey(given: object, allowed: ReadonlySet<string> | readonly string[]): string | undefined {
  const known = allowed instanceof Set ? allowed : new Set(allowed as readonly string[]);
  return Object.keys(given).find((key) => !known.has(key));
}

/** Levenshtein distance: insertions, deletions and substitutions. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
