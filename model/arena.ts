// Memory that typed arrays are carved from one after another, instead of a SharedArrayBuffer
// each: a recompute in passes reads every pass's series and events into one (its `used` set back
// to 0 between passes), so its memory is the budget's whatever the number of passes. A buffer
// per array would stay alive until every thread that saw it (the pool's workers) collects its
// garbage, which an idle worker may never do. An array carved from it holds what was there
// before, as a reused one does: its reader writes what it reads.
export interface SharedArena {
  buffer: SharedArrayBuffer;
  used: number;
}

/** `bytes` (rounded up to 8) of `arena` while it has the room, else of a buffer of their own. */
export function carve(arena: SharedArena | undefined, bytes: number): { buffer: SharedArrayBuffer; offset: number } {
  const size = Math.ceil(bytes / 8) * 8;
  if (arena === undefined || arena.used + size > arena.buffer.byteLength) return { buffer: new SharedArrayBuffer(size), offset: 0 };
  const offset = arena.used;
  arena.used += size;
  return { buffer: arena.buffer, offset };
}
