/**
 * A Dockerfile read as BuildKit reads it, enough to check what it does: instructions (continued
 * lines joined, comments dropped) grouped by stage.
 */
export interface Instruction {
  keyword: string;
  /** What follows the keyword, continuation lines joined with a space. */
  args: string;
  line: number;
}

export interface Stage {
  /** The image it starts from, as written (`${NODE_IMAGE}`, `build`...). */
  from: string;
  /** Its `AS` name, if any. */
  name: string | undefined;
  instructions: Instruction[];
}

export interface Dockerfile {
  /** ARGs before the first FROM, with their defaults. */
  globalArgs: Record<string, string>;
  stages: Stage[];
}

export function parseDockerfile(text: string): Dockerfile {
  const instructions: Instruction[] = [];
  let pending: { words: string[]; line: number } | undefined;
  text.split("\n").forEach((raw, index) => {
    const line = raw.trim();
    if (line.startsWith("#") || (line === "" && !pending)) return;
    const continued = line.endsWith("\\");
    const body = continued ? line.slice(0, -1).trim() : line;
    if (pending) pending.words.push(body);
    else pending = { words: [body], line: index + 1 };
    if (continued) return;
    const joined = pending.words.filter(Boolean).join(" ");
    const space = joined.search(/\s/);
    instructions.push({
      keyword: (space === -1 ? joined : joined.slice(0, space)).toUpperCase(),
      args: space === -1 ? "" : joined.slice(space + 1).trim(),
      line: pending.line,
    });
    pending = undefined;
  });
  const globalArgs: Record<string, string> = {};
  const stages: Stage[] = [];
  for (const instruction of instructions) {
    if (instruction.keyword === "FROM") {
      const [from, as, name] = instruction.args.split(/\s+/);
      stages.push({ from: from!, name: as?.toUpperCase() === "AS" ? name : undefined, instructions: [] });
    } else if (stages.length === 0) {
      if (instruction.keyword === "ARG") {
        const [name, value = ""] = instruction.args.split("=", 2);
        globalArgs[name!] = value;
      }
    } else {
      stages.at(-1)!.instructions.push(instruction);
    }
  }
  return { globalArgs, stages };
}

/** The instructions of a stage with this keyword. */
export function withKeyword(stage: Stage, keyword: string): Instruction[] {
  return stage.instructions.filter((i) => i.keyword === keyword);
}

/** The exec form of ENTRYPOINT or CMD (`["a", "b"]`) as an array; the shell form is refused. */
export function execForm(instruction: Instruction): string[] {
  const parsed: unknown = JSON.parse(instruction.args);
  if (!Array.isArray(parsed) || !parsed.every((word) => typeof word === "string")) throw new Error(`line ${instruction.line}: not the exec form`);
  return parsed as string[];
}

/** `KEY=value KEY2="value 2"` of an ENV instruction. */
export function envPairs(instruction: Instruction): Record<string, string> {
  const pairs: Record<string, string> = {};
  for (const match of instruction.args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("([^"]*)"|\S*)/g)) pairs[match[1]!] = match[3] ?? match[2]!;
  return pairs;
}
