// Σ of decimal strings, exactly (BigInt at the largest scale among them), written as the API
// writes decimals (no trailing zeros, no exponent): the tests' independent sum of what a page
// or a response adds up.
export function sumDecimals(xs: string[]): string {
  const scale = Math.max(0, ...xs.map((x) => x.split('.')[1]?.length ?? 0));
  const n = xs.reduce((acc, x) => {
    const [i, f = ''] = x.replace('-', '').split('.');
    const v = BigInt(i! + f.padEnd(scale, '0'));
    return acc + (x.startsWith('-') ? -v : v);
  }, 0n);
  const s = (n < 0n ? -n : n).toString().padStart(scale + 1, '0');
  const frac = s.slice(s.length - scale).replace(/0+$/, '');
  return `${n < 0n ? '-' : ''}${s.slice(0, s.length - scale)}${frac ? `.${frac}` : ''}`;
}
