/**
 * The shapes of the results only revision 2026-07-28 has: `server/discover`, `input_required`,
 * and the `data` of its errors. Loaded with the other schemas (see schema-registry.ts).
 */
import { loose, oneOf, v, type Infer } from "./valita.js";
import { MetaKey } from "./modern.js";
import { ImplementationSchema, ServerCapabilitiesSchema } from "./schemas.js";

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

export type DiscoverResult = Infer<typeof DiscoverResultSchema>;
export type InputRequiredResult = Infer<typeof InputRequiredResultSchema>;
