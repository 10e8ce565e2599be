/**
 * The budget of a child's stderr lines (line-budget.ts), on a clock the test moves: the burst at
 * once, then the rate, and never more than the burst saved up however long the child was quiet.
 */
import { describe, expect, it } from "vitest";
import { LineBudget } from "../../../src/gateway/children/line-budget.js";

function taken(budget: LineBudget, tries: number): number {
  let count = 0;
  for (let i = 0; i < tries; i++) if (budget.take()) count++;
  return count;
}

describe("LineBudget", () => {
  it("lets the burst through at once, then the rate", () => {
    let now = 1_000;
    const budget = new LineBudget(10, 4, () => now);
    expect(taken(budget, 100)).toBe(10);
    now += 500;
    expect(taken(budget, 100)).toBe(2);
    now += 250;
    expect(taken(budget, 100)).toBe(1);
    // A quarter of a line's wait, four times over, is one line: refused ones keep what they saved.
    const answers: boolean[] = [];
    for (let i = 0; i < 4; i++) {
      now += 62.5;
      answers.push(budget.take());
    }
    expect(answers).toEqual([false, false, false, true]);
  });

  it("saves up no more than the burst while the child is quiet", () => {
    let now = 0;
    const budget = new LineBudget(5, 100, () => now);
    expect(taken(budget, 5)).toBe(5);
    now += 3_600_000;
    expect(taken(budget, 1_000)).toBe(5);
  });
});
