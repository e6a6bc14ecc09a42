/** Levenshtein distance, stopping early once it exceeds `limit` (the answer is then `limit + 1`). */
export function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      rowMin = Math.min(rowMin, current[j]);
    }
    if (rowMin > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length];
}

/** The command a mistyped first word most likely meant: within edit distance 2, the closest first. */
export function closestCommand(word: string, commands: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const name of commands) {
    const distance = editDistance(word.toLowerCase(), name, 2);
    if (distance <= 2 && (!best || distance < best.distance)) best = { name, distance };
  }
  return best?.name;
}

/**
 * Why positional words given without `-p` do not run headless (SPEC 1, issue 16 B8): a near miss of a
 * command gets the suggestion; otherwise (no terminal to open the interactive UI on) the user is told to
 * use `-p`.
 */
export function wordsWithoutPrintMessage(words: readonly string[], commands: readonly string[]): string {
  const suggestion = closestCommand(words[0], commands);
  if (suggestion) return `unknown command "${words[0]}"; did you mean "cadre ${suggestion}"?`;
  return `"${words[0]}" is not a command; to run a task headless use cadre -p ${JSON.stringify(words.join(' '))}`;
}
