// Medians, their formatting and the ratios of the bench's tables, the same for every section.

/** Median, min and max of the numbers; undefined when nothing was measured, null when every run failed. */
export function summarize(values) {
  if (values.every((v) => v === undefined)) return undefined; // not measured in this run
  const numbers = values.filter((v) => typeof v === "number").sort((a, b) => a - b);
  if (numbers.length === 0) return null;
  const middle = Math.floor(numbers.length / 2);
  const median = numbers.length % 2 ? numbers[middle] : (numbers[middle - 1] + numbers[middle]) / 2;
  return { median, min: numbers[0], max: numbers.at(-1), failed: values.length - numbers.length };
}

export function format(stat) {
  if (stat === undefined) return "n/a";
  if (!stat) return "fail";
  const digits = stat.median >= 100 ? 0 : stat.median >= 10 ? 1 : 2;
  const range = stat.min === stat.max ? "" : ` (${stat.min.toFixed(digits)}-${stat.max.toFixed(digits)})`;
  return `${stat.median.toFixed(digits)}${range}${stat.failed ? ` [${stat.failed} failed]` : ""}`;
}

/** a/b of the medians; "-" where either could not be measured. */
export function ratio(a, b) {
  if (!a || !b || b.median === 0) return a && b && a.median === 0 && b.median === 0 ? "1.00" : "-";
  return (a.median / b.median).toFixed(2);
}

/** The clients mcpwire is compared with: every other client of the run, in the run's order. */
export function comparedWith(clients) {
  return clients.filter((client) => client !== "mcpwire");
}

/** The header and separator of a table with a column per client and mcpwire/X for every other client. */
export function tableHead(clients) {
  const others = comparedWith(clients);
  const columns = ["figure", ...clients, ...others.map((other) => `mcpwire/${other}`)];
  return [`| ${columns.join(" | ")} |`, `| ${columns.map(() => "---").join(" | ")} |`];
}

/** One row: the figure per client, then mcpwire's ratio to each other client ("-" without mcpwire). */
export function tableRow(title, clients, stats) {
  const others = comparedWith(clients);
  const ratios = others.map((other) => (stats.mcpwire === undefined ? "-" : ratio(stats.mcpwire, stats[other])));
  return `| ${[title, ...clients.map((client) => format(stats[client])), ...ratios].join(" | ")} |`;
}
