/** Substring patterns for LIKE ... ESCAPE '\': the text's own %, _ and \ match only themselves. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export function containsPattern(text: string): string {
  return `%${escapeLike(text)}%`;
}
