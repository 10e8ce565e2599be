import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { IdTable, type TableId } from "../../src/collections/id-table.js";

describe("IdTable", () => {
  it("gets, replaces and deletes entries by id", () => {
    const table = new IdTable<string>();
    table.set(1, "one");
    table.set("1", "string one");
    table.set(1, "uno");
    expect(table.get(1)).toBe("uno");
    expect(table.get("1")).toBe("string one");
    expect(table.size).toBe(2);
    expect(table.delete(1)).toBe(true);
    expect(table.delete(1)).toBe(false);
    expect(table.has(1)).toBe(false);
    expect(table.get(1)).toBeUndefined();
    expect(table.size).toBe(1);
  });

  it("treats 0 and -0 as one id, as a Map does, and refuses NaN", () => {
    const table = new IdTable<string>();
    table.set(0, "zero");
    expect(table.get(-0)).toBe("zero");
    expect(() => table.set(Number.NaN, "x")).toThrow(RangeError);
    expect(table.get(Number.NaN)).toBeUndefined();
  });

  it("keeps 64 entries in flight through a long run of inserts and deletes (the session's pattern)", () => {
    const table = new IdTable<{ id: number }>();
    let misses = 0;
    for (let id = 1; id <= 100_000; id++) {
      table.set(id, { id });
      if (id > 64) {
        if (table.get(id - 64)?.id !== id - 64 || !table.delete(id - 64)) misses++;
      }
    }
    expect(misses).toBe(0);
    expect(table.size).toBe(64);
    expect(table.valueList().map((value) => value.id)).toEqual(expect.arrayContaining([100_000, 99_937]));
    expect(table.idList()).toHaveLength(64);
  });

  it("holds no value of a deleted entry", () => {
    const table = new IdTable<object>();
    for (let id = 0; id < 10; id++) table.set(id, {});
    for (let id = 0; id < 9; id++) table.delete(id);
    const slots = (table as unknown as { values: unknown[] }).values;
    expect(slots.filter((value) => value !== undefined)).toHaveLength(1);
  });

  it("behaves as a Map under any sequence of operations (numbers, strings, floats, large numbers)", () => {
    const id = fc.oneof(fc.integer({ min: -50, max: 50 }), fc.string({ maxLength: 3 }), fc.constantFrom(0.5, 2 ** 40, -(2 ** 33), Number.MAX_SAFE_INTEGER));
    const operation = fc.oneof(
      fc.record({ kind: fc.constant("set" as const), id, value: fc.integer() }),
      fc.record({ kind: fc.constant("delete" as const), id }),
      fc.record({ kind: fc.constant("clear" as const) }),
    );
    fc.assert(
      fc.property(fc.array(operation, { maxLength: 400 }), (operations) => {
        const table = new IdTable<number>();
        const model = new Map<TableId, number>();
        for (const op of operations) {
          if (op.kind === "set") {
            table.set(op.id, op.value);
            model.set(op.id, op.value);
          } else if (op.kind === "delete") {
            expect(table.delete(op.id)).toBe(model.delete(op.id));
          } else {
            table.clear();
            model.clear();
          }
          expect(table.size).toBe(model.size);
        }
        for (const [key, value] of model) expect(table.get(key)).toBe(value);
        expect(new Set(table.idList())).toEqual(new Set(model.keys()));
        expect(table.valueList().sort()).toEqual([...model.values()].sort());
      }),
    );
  });
});
