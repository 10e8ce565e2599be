/**
 * The shapes only revision 2026-07-28 has: `server/discover`, `input_required`, the `data` of its
 * errors, and the tool shapes it loosens. Loaded with the other schemas (see schema-registry.ts).
 */
import { loose, oneOf, v, type Infer } from "./valita.js";
import { MetaKey } from "./modern.js";
import {
  CallToolResultSchema,
  CreateMessageParamsSchema,
  ImplementationSchema,
  ListToolsResultSchema,
  ServerCapabilitiesSchema,
  ToolSchema,
} from "./schemas.js";

export const CacheFieldsSchema = {
  ttlMs: v.number().optional(),
  cacheScope: oneOf("public", "private").optional(),
};

export const DiscoverResultSchema = loose({
  supportedVersions: v.array(v.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: v.string().optional(),
  _meta: loose({ [MetaKey.serverInfo]: ImplementationSchema.optional() }).optional(),
  ...CacheFieldsSchema,
});

export const InputRequestSchema = loose({
  method: oneOf("elicitation/create", "sampling/createMessage", "roots/list"),
  params: v.record(v.unknown()).optional(),
});

export const InputRequiredResultSchema = loose({
  resultType: v.literal("input_required"),
  inputRequests: v.record(InputRequestSchema).optional(),
  requestState: v.string().optional(),
});

export const UnsupportedVersionDataSchema = loose({ supported: v.array(v.string()) });
export const MissingCapabilityDataSchema = loose({ requiredCapabilities: v.record(v.unknown()) });

/**
 * A tool (server/tools, "Output Schema"): its `outputSchema` may be any JSON Schema 2020-12 (an
 * array's, a string's, ...), where the legacy revisions take only `type: "object"`. A schema is
 * an object here; its dialect and keywords are the output check's to read (client/output-schema.ts).
 */
export const ModernToolSchema = ToolSchema.extend({ outputSchema: loose({}).optional() });

export const ModernListToolsResultSchema = ListToolsResultSchema.extend({ tools: v.array(ModernToolSchema) });

/** A tool's result: `structuredContent` may be any JSON value (object, array, string, number, boolean or null). */
export const ModernCallToolResultSchema = CallToolResultSchema.extend({ structuredContent: v.unknown().optional() });

/** Sampling's `tools` are tools of this revision too. */
export const ModernCreateMessageParamsSchema = CreateMessageParamsSchema.extend({ tools: v.array(ModernToolSchema).optional() });

export type DiscoverResult = Infer<typeof DiscoverResultSchema>;
export type InputRequiredResult = Infer<typeof InputRequiredResultSchema>;
