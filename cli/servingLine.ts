// The one line for people a server prints once it listens: where to point a browser. It goes to
// stdout, so stderr stays JSON log lines only (the "listening" line among them) for parsers.

/** `vaultd serving http://localhost:8080 — explorer at /, docs at /docs`; every interface reads as localhost. */
export function servingLine(host: string, port: number): string {
  const shown = host === '0.0.0.0' || host === '::' || host === '' ? 'localhost' : host.includes(':') ? `[${host}]` : host;
  return `vaultd serving http://${shown}:${port} — explorer at /, docs at /docs`;
}

/** Best effort: a stdout nobody reads (closed by a supervisor, `| head -0`) must not stop the server. */
export function printServingLine(host: string, port: number): void {
  const out = process.stdout;
  if (out.destroyed) return;
  // EPIPE arrives as an 'error' event after the write; unheard, it would end the process
  out.on('error', () => undefined);
  out.write(`${servingLine(host, port)}\n`);
}
