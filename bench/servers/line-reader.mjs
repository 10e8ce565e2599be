// Newline-delimited messages from a stream, in O(n): each chunk is searched once for newlines and
// kept aside until its line is complete (no rescans, no repeated flattening of a growing string).
export function onLines(stream, onLine) {
  let parts = [];
  stream.setEncoding("utf8");
  stream.on("data", (chunk) => {
    let start = 0;
    let newline;
    while ((newline = chunk.indexOf("\n", start)) >= 0) {
      parts.push(chunk.slice(start, newline));
      const line = parts.length === 1 ? parts[0] : parts.join("");
      parts = [];
      start = newline + 1;
      if (line.trim() !== "") onLine(line);
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
  });
}
