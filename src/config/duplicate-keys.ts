/**
 * The keys that one JSON object gives twice. `JSON.parse` keeps the last silently, so an
 * `mcpServers` block copied and not renamed would replace the first server without a word;
 * this finds them so that the reader can refuse the file.
 *
 * It reads text that `JSON.parse` has already accepted (strict JSON, no comments, as the
 * servers file is read), so it only has to follow the structure: objects and arrays, and
 * strings, whose escapes (`\"`, `\\`) are the one subtle part. Keys are compared as
 * `JSON.parse` compares them, decoded (`"\u0061"` is `"a"`).
 */

export interface DuplicateKey {
  /** Where the object is: the keys and array indexes from the top, `[]` for the top object. */
  path: (string | number)[];
  /** The key given twice, decoded. */
  key: string;
  /** The lines (from 1) of its first and of its second occurrence. */
  firstLine: number;
  line: number;
}

interface ObjectFrame {
  kind: "object";
  path: (string | number)[];
  /** Each key seen so far, with its line. */
  keys: Map<string, number>;
  /** After `{` or `,`, the next string is a key; after the key, its value. */
  expectKey: boolean;
  key?: string;
}

interface ArrayFrame {
  kind: "array";
  path: (string | number)[];
  index: number;
}

/** Every key given twice in one object, in the order of the second occurrences. `text` must be valid JSON. */
export function findDuplicateKeys(text: string): DuplicateKey[] {
  const found: DuplicateKey[] = [];
  const stack: (ObjectFrame | ArrayFrame)[] = [];
  let line = 1;
  // The path of a value that starts here: its parent's, plus its key or index.
  const childPath = (): (string | number)[] => {
    const parent = stack.at(-1);
    if (!parent) return [];
    return [...parent.path, parent.kind === "object" ? parent.key! : parent.index];
  };
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    switch (char) {
      case "\n":
        line++;
        break;
      case "\r":
        if (text[i + 1] !== "\n") line++;
        break;
      case "{":
        stack.push({ kind: "object", path: childPath(), keys: new Map(), expectKey: true });
        break;
      case "[":
        stack.push({ kind: "array", path: childPath(), index: 0 });
        break;
      case "}":
      case "]":
        stack.pop();
        break;
      case ",": {
        const top = stack.at(-1)!;
        if (top.kind === "object") top.expectKey = true;
        else top.index++;
        break;
      }
      case '"': {
        // Raw line breaks cannot be inside a JSON string, so the line count needs no update here.
        let end = i + 1;
        while (text[end] !== '"') end += text[end] === "\\" ? 2 : 1;
        const top = stack.at(-1);
        if (top?.kind === "object" && top.expectKey) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
          const firstLine = top.keys.get(key);
          if (firstLine === undefined) top.keys.set(key, line);
          else found.push({ path: top.path, key, firstLine, line });
          top.key = key;
          top.expectKey = false;
        }
        i = end;
        break;
      }
    }
  }
  return found;
}
