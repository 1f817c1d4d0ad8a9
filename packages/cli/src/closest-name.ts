/**
 * The name a mistyped command, action or option most likely meant, for "did you mean …?". Hand-
 * written: the only edit-distance package in node_modules (fast-levenshtein) is eslint's, not a
 * dependency of the CLI, and counts a swap of two letters (`strat`) as two edits.
 */

/**
 * The optimal-string-alignment distance of `a` and `b`: the fewest single-character insertions,
 * deletions, substitutions and swaps of two neighbours that turn one into the other.
 */
export function editDistance(a: string, b: string): number {
  // rows[i][j]: the distance of a's first i characters and b's first j.
  const rows = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number) => rows[i]?.[j] ?? Number.POSITIVE_INFINITY;
  for (let i = 1; i <= a.length; i += 1) {
    for (let j = 1; j <= b.length; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1);
      (rows[i] as number[])[j] = best;
    }
  }
  return at(a.length, b.length);
}

/**
 * The one of `known` that `given` most likely meant: the nearest by editDistance when it is within
 * a third of the name's length (at least one edit), else the only name `given` begins (at least
 * two characters typed). Undefined when none is that close, so a suggestion is never a guess.
 */
export function closestName(given: string, known: readonly string[]): string | undefined {
  const allowed = Math.max(1, Math.floor(given.length / 3));
  let nearest: { name: string; distance: number } | undefined;
  for (const name of known) {
    const distance = editDistance(given, name);
    if (distance <= allowed && (nearest === undefined || distance < nearest.distance)) nearest = { name, distance };
  }
  if (nearest !== undefined) return nearest.name;
  const begun = known.filter((name) => given.length >= 2 && name.startsWith(given));
  return begun.length === 1 ? begun[0] : undefined;
}
