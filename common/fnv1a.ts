// FNV-1a over a string's UTF-16 code units: a cheap, stable 32-bit hash (the demo world's
// labels, the request path's slot memos).

/** FNV-1a of `s`, continuing from `h` (the offset basis by default), as an unsigned 32-bit integer. */
export function fnv1a(s: string, h = 0x811c9dc5): number {
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return h >>> 0;
}
