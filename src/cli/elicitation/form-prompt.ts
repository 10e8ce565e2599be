/**
 * A form-mode elicitation on the terminal (client/elicitation, "Form Mode"): the server and its
 * message, then a choice to answer, decline or cancel; each field in turn, checked as it is typed
 * (see form-fields.ts), with the schema's default kept by Enter; then the answers shown for review,
 * to send, edit again, decline or cancel. The end of input cancels.
 */
import type { FormElicitationRequest } from "../../client/elicitation.js";
import type { ElicitResult } from "../../protocol/schemas.js";
import { fieldOf, hintOf, parseAnswer, showValue, type Field, type FieldSchema, type FieldValue } from "./form-fields.js";
import { decide, indented, shown } from "./questions.js";
import type { TerminalInput } from "./terminal-input.js";

interface FormField {
  key: string;
  label: string;
  description: string | undefined;
  field: Field;
  required: boolean;
  default: FieldValue | undefined;
}

export async function askForm(request: FormElicitationRequest, input: TerminalInput, server: string, signal: AbortSignal): Promise<ElicitResult> {
  const { message, requestedSchema } = request.params;
  input.say(`\nmcpwire: ${shown(server)} asks you for information:\n${indented(message)}`);
  const start = await decide(input, "  Enter to answer, d to decline, c to cancel: ", ["go", "decline", "cancel"], signal);
  if (start === null) return { action: "cancel" };
  if (start !== "go") return { action: start };
  const required = new Set(requestedSchema.required ?? []);
  const fields = Object.entries(requestedSchema.properties).map(([key, schema]) => formField(key, schema as FieldSchema, required.has(key)));
  let answers: Record<string, FieldValue> = {};
  for (;;) {
    const given = await askFields(fields, answers, input, signal);
    if (given === null) return { action: "cancel" };
    answers = given;
    input.say(`  Your answers:\n${review(fields, answers)}`);
    const choice = await decide(input, "  Enter to send them, e to edit, d to decline, c to cancel: ", ["go", "edit", "decline", "cancel"], signal);
    if (choice === null) return { action: "cancel" };
    if (choice === "go") return { action: "accept", content: answers };
    if (choice !== "edit") return { action: choice };
  }
}

function formField(key: string, schema: FieldSchema, required: boolean): FormField {
  const title = typeof schema.title === "string" && schema.title.trim() !== "" ? schema.title : key;
  const given = schema.default;
  const isValue = typeof given === "string" || typeof given === "number" || typeof given === "boolean" || Array.isArray(given);
  return {
    key,
    label: title === key ? key : `${title} (${key})`,
    description: typeof schema.description === "string" ? schema.description : undefined,
    field: fieldOf(schema),
    required,
    default: isValue ? (given as FieldValue) : undefined,
  };
}

/** Every field in turn; `null` when the input ended. `before` holds the answers of a previous round, kept by Enter. */
async function askFields(
  fields: readonly FormField[],
  before: Record<string, FieldValue>,
  input: TerminalInput,
  signal: AbortSignal,
): Promise<Record<string, FieldValue> | null> {
  const answers: Record<string, FieldValue> = {};
  for (const [index, form] of fields.entries()) {
    const kept = before[form.key] ?? form.default;
    input.say(`  [${index + 1}/${fields.length}] ${shown(form.label)}: ${shown(hintOf(form.field))}${form.required ? ", required" : ""}\n`);
    if (form.description) input.say(indented(form.description, "        "));
    const prompt = kept === undefined ? "  > " : `  (Enter keeps ${shown(showValue(form.field, kept))}) > `;
    for (;;) {
      const line = await input.ask(prompt, signal);
      if (line === null) return null;
      if (line.trim() === "") {
        if (kept !== undefined) answers[form.key] = kept;
        else if (form.required) {
          input.say("  This field is required.\n");
          continue;
        }
        break;
      }
      const parsed = parseAnswer(form.field, line);
      if ("value" in parsed) {
        answers[form.key] = parsed.value;
        break;
      }
      input.say(`  ${shown(parsed.problem)}.\n`);
    }
  }
  return answers;
}

function review(fields: readonly FormField[], answers: Record<string, FieldValue>): string {
  return fields
    .map((form) => `    ${shown(form.label)}: ${answers[form.key] === undefined ? "(not given)" : shown(showValue(form.field, answers[form.key]!))}\n`)
    .join("");
}
