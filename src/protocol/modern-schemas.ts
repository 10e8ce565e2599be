/**
 * The shapes of the results only revision 2026-07-28 has: `server/discover`, `input_required`,
 * and the `data` of its errors. Loaded with the other schemas (see schema-registry.ts).
 */
import { z } from "zod";
import { MetaKey } from "./modern.js";
import { ImplementationSchema, ServerCapabilitiesSchema } from "./schemas.js";

export const CacheFieldsSchema = {
  ttlMs: z.number().optional(),
  cacheScope: z.enum(["public", "private"]).optional(),
};

export const DiscoverResultSchema = z.looseObject({
  supportedVersions: z.array(z.string()),
  capabilities: ServerCapabilitiesSchema,
  instructions: z.string().optional(),
  _meta: z.looseObject({ [MetaKey.serverInfo]: ImplementationSchema.optional() }).optional(),
  ...CacheFieldsSchema,
});

export const InputRequestSchema = z.looseObject({
  method: z.enum(["elicitation/create", "sampling/createMessage", "roots/list"]),
  params: z.record(z.string(), z.unknown()).optional(),
});

export const InputRequiredResultSchema = z.looseObject({
  resultType: z.literal("input_required"),
  inputRequests: z.record(z.string(), InputRequestSchema).optional(),
  requestState: z.string().optional(),
});

export const UnsupportedVersionDataSchema = z.looseObject({ supported: z.array(z.string()) });
export const MissingCapabilityDataSchema = z.looseObject({ requiredCapabilities: z.record(z.string(), z.unknown()) });

export type DiscoverResult = z.infer<typeof DiscoverResultSchema>;
export type InputRequiredResult = z.infer<typeof InputRequiredResultSchema>;
