/** Cutting text to a length for a message, without breaking a character in two. */

/**
 * `text` when it has at most `max` UTF-16 units, else its start ending in "…", `max` units
 * in all; a surrogate pair (an emoji) is never cut in half.
 * @example cutText('abcdef', 4) // 'abc…'
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}
