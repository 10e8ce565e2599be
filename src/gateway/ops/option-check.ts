/** The options of the ops constructors, checked as every layer checks its own: a key nobody reads is refused. */
import { didYouMean, firstUnknownKey } from "../../util/option-names.js";

export function refuseUnknownOptions(options: object, allowed: ReadonlySet<string>, where: string): void {
  const unknown = firstUnknownKey(options, allowed);
  if (unknown === undefined) return;
  throw new TypeError(`${where}: unknown option "${unknown}"${didYouMean(unknown, allowed)}; it takes ${[...allowed].join(", ")}`);
}
