// Response headers in one native call (issue #11): uWS writes `name: value\r\n` for each
// writeHeader, so a reply's whole header list is joined into the value of its first header
// and handed over once, instead of one JS→C++ crossing (and string conversion) per header.
// Every name and value is server-made: constants, or checked input (a request id matching
// REQUEST_ID_PATTERN), so no CR or LF reaches a value from a client.

/** The value that, written under `headers[0][0]`, puts every header of `headers` on the wire. */
export function joinedHeaderValue(headers: readonly (readonly [string, string])[]): string {
  let value = headers[0]![1];
  for (let i = 1; i < headers.length; i++) value += `\r\n${headers[i]![0]}: ${headers[i]![1]}`;
  return value;
}
