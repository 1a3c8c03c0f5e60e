// An error as one printable line for summaries: the first line only (viem's messages run to
// a dozen lines of request details), URLs cut to their origin (an RPC URL's path or query
// often holds an API key), at most 300 characters.
export function oneLineError(message: string): string {
  const first =
    message
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? 'unknown error';
  const safe = first.replace(/\b(https?|wss?):\/\/[^\s"'<>)]+/g, (url) => {
    try {
      return new URL(url).origin;
    } catch {
      return '<url>';
    }
  });
  return safe.length > 300 ? `${safe.slice(0, 299)}…` : safe;
}
