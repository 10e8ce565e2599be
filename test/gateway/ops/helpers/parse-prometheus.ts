/**
 * A strict reader of the Prometheus text format 0.0.4, for tests: it throws on any line the
 * format does not allow (a sample before its TYPE, a second HELP or TYPE for a family, a family
 * not in one uninterrupted group, the same name and labels twice, a bad escape, a value Go's
 * ParseFloat would refuse), and gives back families with their labels
 * unescaped, so a test checks what a scraper would read.
 */

export interface ParsedSample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface ParsedFamily {
  name: string;
  help?: string;
  type?: string;
  samples: ParsedSample[];
}

const NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*";
const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*/;

export function parsePrometheusText(text: string): Map<string, ParsedFamily> {
  if (text !== "" && !text.endsWith("\n")) throw new Error("the last line must end with a line feed");
  const families = new Map<string, ParsedFamily>();
  const family = (name: string) => {
    let found = families.get(name);
    if (found === undefined) families.set(name, (found = { name, samples: [] }));
    return found;
  };
  const lines = text.split("\n").slice(0, -1);
  const seenLines = new Set<string>();
  let current: ParsedFamily | undefined;
  const left = new Set<string>();
  const enter = (found: ParsedFamily, where: string) => {
    if (found === current) return;
    if (left.has(found.name)) throw new Error(`${where}: ${found.name} is not one uninterrupted group`);
    if (current !== undefined) left.add(current.name);
    current = found;
  };
  for (const [index, line] of lines.entries()) {
    const where = `line ${index + 1} ${JSON.stringify(line)}`;
    if (line.startsWith("#")) {
      const help = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
      const type = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
      if (help !== null) {
        const found = family(help[1]!);
        enter(found, where);
        if (found.help !== undefined) throw new Error(`${where}: a second HELP for ${help[1]}`);
        found.help = unescapeHelp(help[2]!, where);
      } else if (type !== null) {
        const found = family(type[1]!);
        enter(found, where);
        if (found.type !== undefined) throw new Error(`${where}: a second TYPE for ${type[1]}`);
        if (found.samples.length > 0) throw new Error(`${where}: TYPE after samples`);
        found.type = type[2]!;
      } else throw new Error(`${where}: a comment that is neither HELP nor TYPE`);
      continue;
    }
    const sample = parseSample(line, where);
    const owner = ownerOf(sample.name, families);
    if (owner === undefined || owner.type === undefined) throw new Error(`${where}: a sample before its family's TYPE`);
    if (owner !== current) throw new Error(`${where}: ${owner.name} is not one uninterrupted group`);
    const identity = `${sample.name}${JSON.stringify(Object.entries(sample.labels).sort())}`;
    if (seenLines.has(identity)) throw new Error(`${where}: the same name and labels twice`);
    seenLines.add(identity);
    owner.samples.push(sample);
  }
  return families;
}

/** The family a sample belongs to: its own name, or a histogram's for `_bucket`, `_sum`, `_count`. */
function ownerOf(name: string, families: Map<string, ParsedFamily>): ParsedFamily | undefined {
  const own = families.get(name);
  if (own !== undefined) return own;
  const suffix = /^(.*)_(bucket|sum|count)$/.exec(name);
  const base = suffix === null ? undefined : families.get(suffix[1]!);
  return base?.type === "histogram" ? base : undefined;
}

function parseSample(line: string, where: string): ParsedSample {
  const head = new RegExp(`^(${NAME})`).exec(line);
  if (head === null) throw new Error(`${where}: no metric name`);
  const name = head[1]!;
  let rest = line.slice(name.length);
  const labels: Record<string, string> = {};
  if (rest.startsWith("{")) {
    rest = rest.slice(1);
    while (!rest.startsWith("}")) {
      const label = LABEL_NAME.exec(rest);
      if (label === null) throw new Error(`${where}: bad label name`);
      rest = rest.slice(label[0].length);
      if (!rest.startsWith('="')) throw new Error(`${where}: label without ="`);
      rest = rest.slice(2);
      let value = "";
      for (;;) {
        const char = rest[0];
        if (char === undefined) throw new Error(`${where}: unterminated label value`);
        if (char === '"') break;
        if (char === "\n") throw new Error(`${where}: raw line feed in a label value`);
        if (char === "\\") {
          const next = rest[1];
          if (next === "\\") value += "\\";
          else if (next === '"') value += '"';
          else if (next === "n") value += "\n";
          else throw new Error(`${where}: bad escape \\${next}`);
          rest = rest.slice(2);
          continue;
        }
        value += char;
        rest = rest.slice(1);
      }
      rest = rest.slice(1);
      if (label[0] in labels) throw new Error(`${where}: label ${label[0]} twice`);
      labels[label[0]] = value;
      if (rest.startsWith(",")) rest = rest.slice(1);
      else if (!rest.startsWith("}")) throw new Error(`${where}: expected , or }`);
    }
    rest = rest.slice(1);
  }
  const value = /^ (\S+)$/.exec(rest);
  if (value === null) throw new Error(`${where}: expected one space and a value`);
  return { name, labels, value: parseGoFloat(value[1]!, where) };
}

function parseGoFloat(text: string, where: string): number {
  if (text === "+Inf") return Number.POSITIVE_INFINITY;
  if (text === "-Inf") return Number.NEGATIVE_INFINITY;
  if (text === "NaN") return Number.NaN;
  if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/.test(text)) throw new Error(`${where}: ${text} is not a float`);
  return Number(text);
}

function unescapeHelp(text: string, where: string): string {
  return text.replace(/\\(.?)/g, (_, next: string) => {
    if (next === "\\") return "\\";
    if (next === "n") return "\n";
    throw new Error(`${where}: bad escape in HELP \\${next}`);
  });
}
