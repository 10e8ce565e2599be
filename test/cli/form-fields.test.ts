/**
 * The fields of a form-mode elicitation as the terminal reads them (client/elicitation,
 * "Requested Schema"): each primitive type from one line of text, checked against its schema.
 */
import { describe, expect, it } from "vitest";
import { fieldOf, hintOf, parseAnswer, showValue } from "../../src/cli/elicitation/form-fields.js";

const value = (schema: Record<string, unknown>, line: string) => parseAnswer(fieldOf(schema), line);

describe("form fields on the terminal", () => {
  it("strings: lengths, the four formats, a pattern", () => {
    expect(value({ type: "string" }, "  Ada  ")).toEqual({ value: "Ada" });
    expect(value({ type: "string", minLength: 3, maxLength: 5 }, "ab")).toEqual({ problem: "it must be 3 to 5 characters long" });
    expect(value({ type: "string", maxLength: 2 }, "😀😀")).toEqual({ value: "😀😀" });
    expect(value({ type: "string", format: "email" }, "ada@example.com")).toEqual({ value: "ada@example.com" });
    expect(value({ type: "string", format: "email" }, "ada")).toEqual({ problem: "that is not an email address" });
    expect(value({ type: "string", format: "uri" }, "https://example.com/x")).toHaveProperty("value");
    expect(value({ type: "string", format: "uri" }, "example.com")).toHaveProperty("problem");
    expect(value({ type: "string", format: "date" }, "2024-02-29")).toHaveProperty("value");
    expect(value({ type: "string", format: "date" }, "2023-02-29")).toHaveProperty("problem");
    expect(value({ type: "string", format: "date-time" }, "2024-05-01T10:30:00Z")).toHaveProperty("value");
    expect(value({ type: "string", format: "date-time" }, "2024-05-01 10:30")).toHaveProperty("problem");
    expect(value({ type: "string", pattern: "^[A-Z]+$" }, "abc")).toEqual({ problem: "it does not have the form the server asks for" });
    // A pattern that is no regular expression checks nothing.
    expect(value({ type: "string", pattern: "([" }, "abc")).toEqual({ value: "abc" });
  });

  it("numbers and integers, within their bounds", () => {
    expect(value({ type: "number" }, "2.5")).toEqual({ value: 2.5 });
    expect(value({ type: "number" }, "-1e3")).toEqual({ value: -1000 });
    expect(value({ type: "number" }, "0x10")).toEqual({ problem: "that is not a number" });
    expect(value({ type: "integer" }, "2.5")).toEqual({ problem: "that is not a whole number" });
    expect(value({ type: "integer", minimum: 1, maximum: 100 }, "101")).toEqual({ problem: "it must be from 1 to 100" });
    expect(hintOf(fieldOf({ type: "integer", minimum: 1, maximum: 100 }))).toBe("a whole number from 1 to 100");
  });

  it("booleans", () => {
    expect(value({ type: "boolean" }, "Yes")).toEqual({ value: true });
    expect(value({ type: "boolean" }, "n")).toEqual({ value: false });
    expect(value({ type: "boolean" }, "maybe")).toEqual({ problem: "answer y or n" });
  });

  it("single-select enums: plain, titled (oneOf), and the legacy enumNames; by number, value or title", () => {
    const plain = { type: "string", enum: ["Red", "Green"] };
    expect(value(plain, "2")).toEqual({ value: "Green" });
    expect(value(plain, "Red")).toEqual({ value: "Red" });
    expect(value(plain, "3")).toHaveProperty("problem");
    const titled = { type: "string", oneOf: [{ const: "#f00", title: "Red" }, { const: "#0f0", title: "Green" }] };
    expect(value(titled, "green")).toEqual({ value: "#0f0" });
    expect(showValue(fieldOf(titled), "#f00")).toBe("Red");
    const legacy = { type: "string", enum: ["pet-1", "pet-2"], enumNames: ["Cats", "Dogs"] };
    expect(value(legacy, "Dogs")).toEqual({ value: "pet-2" });
    expect(hintOf(fieldOf(legacy))).toBe("one of: 1) Cats  2) Dogs (its number or its value)");
  });

  it("multi-select enums: comma-separated, without repeats, within minItems and maxItems", () => {
    const plain = { type: "array", minItems: 1, maxItems: 2, items: { type: "string", enum: ["a", "b", "c"] } };
    expect(value(plain, "1, c, 1")).toEqual({ value: ["a", "c"] });
    expect(value(plain, "1,2,3")).toEqual({ problem: "choose 1 to 2" });
    expect(value(plain, "z")).toEqual({ problem: '"z" is not one of the choices' });
    const titled = { type: "array", items: { anyOf: [{ const: "f1", title: "Tuna" }, { const: "f2", title: "Salmon" }] } };
    expect(value(titled, "salmon,1")).toEqual({ value: ["f2", "f1"] });
    expect(showValue(fieldOf(titled), ["f2", "f1"])).toBe("Salmon, Tuna");
  });

  it("asks a type it does not know as text", () => {
    expect(fieldOf({ type: "object" })).toMatchObject({ kind: "text" });
    expect(fieldOf({})).toMatchObject({ kind: "text" });
  });
});
