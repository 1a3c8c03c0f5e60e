// The one binary search of the program, over ascending numeric arrays (timestamps).

/** First index i < n with a[i] ≥ t (n if none). */
export function lowerBound(a: ArrayLike<number>, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** First index i < n with a[i] > t (n if none). */
export function upperBound(a: ArrayLike<number>, n: number, t: number): number {
  let lo = 0;
  let hi = n;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (a[mid]! <= t) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
