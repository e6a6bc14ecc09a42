/** Optimal string alignment distance: insertions, deletions, substitutions and adjacent swaps. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) => {
    const row = new Array<number>(cols).fill(0);
    row[0] = i;
    return row;
  });
  for (let j = 0; j < cols; j++) d[0][j] = j;
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i][j] = Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[a.length][b.length];
}

/**
 * The candidates a mistyped `word` probably meant, closest first: within edit distance 2 (1 for words of
 * up to three letters), or starting with it.
 */
export function closeMatches(word: string, candidates: Iterable<string>, limit = 5): string[] {
  const lower = word.toLowerCase();
  const budget = lower.length <= 3 ? 1 : 2;
  const scored: { name: string; score: number }[] = [];
  for (const name of new Set(candidates)) {
    const distance = editDistance(lower, name.toLowerCase());
    if (distance <= budget) scored.push({ name, score: distance });
    else if (lower.length >= 2 && name.toLowerCase().startsWith(lower))
      scored.push({ name, score: budget + 1 });
  }
  return scored
    .sort((x, y) => x.score - y.score || x.name.localeCompare(y.name))
    .slice(0, limit)
    .map((s) => s.name);
}
