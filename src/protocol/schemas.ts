/**
 * Result schemas of the MCP methods the client calls, and of the server-to-client requests it
 * answers (revisions 2024-11-05 to 2025-11-25).
 *
 * Required fields are checked; unknown fields are kept (objects are "loose"), because every
 * revision adds optional fields and `_meta` may carry anything. An answer that fails its schema
 * becomes a PROTOCOL failure, never a half-typed object.
 */
import { z } from "zod";

const Meta = z.record(z.string(), z.unknown()).optional();

/** An icon a client may show beside a tool, prompt, resource or implementation (2025-11-25 on). */
export const IconSchema = z.looseObject({
  src: z.string(),
  mimeType: z.string().optional(),
  /** Each "WxH" (e.g. "48x48") or "any". */
  sizes: z.array(z.string()).optional(),
  theme: z.enum(["light", "dark"]).optional(),
});

const Icons = z.array(IconSchema).optional();

export const ImplementationSchema = z.looseObject({
  name: z.string(),
  version: z.string(),
  title: z.string().optional(),
  icons: Icons,
});

export const ServerCapabilitiesSchema = z.looseObject({
  experimental: z.record(z.string(), z.unknown()).optional(),
  logging: z.looseObject({}).optional(),
  completions: z.looseObject({}).optional(),
  prompts: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
  resources: z.looseObject({ subscribe: z.boolean().optional(), listChanged: z.boolean().optional() }).optional(),
  tools: z.looseObject({ listChanged: z.boolean().optional() }).optional(),
});

export const InitializeResultSchema = z.looseObject({
  protocolVersion: z.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: z.string().optional(),
  _meta: Meta,
});

export const AnnotationsSchema = z.looseObject({
  audience: z.array(z.enum(["user", "assistant"])).optional(),
  priority: z.number().optional(),
  lastModified: z.string().optional(),
});

export const TextResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  text: z.string(),
  _meta: Meta,
});

export const BlobResourceContentsSchema = z.looseObject({
  uri: z.string(),
  mimeType: z.string().optional(),
  blob: z.string(),
  _meta: Meta,
});

export const ResourceContentsSchema = z.union([TextResourceContentsSchema, BlobResourceContentsSchema]);

export const TextContentSchema = z.looseObject({
  type: z.literal("text"),
  text: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ImageContentSchema = z.looseObject({
  type: z.literal("image"),
  data: z.string(),
  mimeType: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const AudioContentSchema = z.looseObject({
  type: z.literal("audio"),
  data: z.string(),
  mimeType: z.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ResourceSchema = z.looseObject({
  uri: z.string(),
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  mimeType: z.string().optional(),
  size: z.number().optional(),
  annotations: AnnotationsSchema.optional(),
  icons: Icons,
  _meta: Meta,
});

/** A content block that points at a resource: a resource's fields, typed as a link. */
export const ResourceLinkSchema = ResourceSchema.extend({ type: z.literal("resource_link") });

export const EmbeddedResourceSchema = z.looseObject({
  type: z.literal("resource"),
  resource: ResourceContentsSchema,
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ContentBlockSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
]);

const JsonObjectSchema = z.looseObject({ type: z.literal("object") });

/**
 * Hints about a tool's behaviour. They come from the server and are not verified: a client must
 * not trust them from a server it does not trust.
 */
export const ToolAnnotationsSchema = z.looseObject({
  title: z.string().optional(),
  /** The tool does not modify its environment. @default false */
  readOnlyHint: z.boolean().optional(),
  /** The tool may update its environment destructively (meaningful when not read-only). @default true */
  destructiveHint: z.boolean().optional(),
  /** Calling it again with the same arguments has no further effect (meaningful when not read-only). @default false */
  idempotentHint: z.boolean().optional(),
  /** The tool may reach an open world of external entities. @default true */
  openWorldHint: z.boolean().optional(),
});

/** How a tool may be run (2025-11-25): whether it can, or must, be called as a task. */
export const ToolExecutionSchema = z.looseObject({
  /** @default "forbidden" */
  taskSupport: z.enum(["forbidden", "optional", "required"]).optional(),
});

export const ToolSchema = z.looseObject({
  name: z.string(),
  /** The name to show; then `annotations.title`, then `name`. */
  title: z.string().optional(),
  description: z.string().optional(),
  inputSchema: JsonObjectSchema,
  outputSchema: JsonObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  icons: Icons,
  execution: ToolExecutionSchema.optional(),
  _meta: Meta,
});

const Page = { nextCursor: z.string().optional(), _meta: Meta };

export const ListToolsResultSchema = z.looseObject({ tools: z.array(ToolSchema), ...Page });

export const CallToolResultSchema = z.looseObject({
  // 2024-11-05 servers always send content; later revisions too, but an empty list is legal.
  content: z.array(ContentBlockSchema).default([]),
  structuredContent: z.record(z.string(), z.unknown()).optional(),
  isError: z.boolean().optional(),
  _meta: Meta,
});

export const ListResourcesResultSchema = z.looseObject({ resources: z.array(ResourceSchema), ...Page });

/** A resource template: a `uriTemplate`, then a resource's fields but its `uri` and `size`, in their order. */
export const ResourceTemplateSchema = z
  .looseObject({ uriTemplate: z.string() })
  .extend(ResourceSchema.omit({ uri: true, size: true }).shape);

export const ListResourceTemplatesResultSchema = z.looseObject({
  resourceTemplates: z.array(ResourceTemplateSchema),
  ...Page,
});

export const ReadResourceResultSchema = z.looseObject({ contents: z.array(ResourceContentsSchema), _meta: Meta });

export const PromptSchema = z.looseObject({
  name: z.string(),
  title: z.string().optional(),
  description: z.string().optional(),
  arguments: z
    .array(z.looseObject({ name: z.string(), description: z.string().optional(), required: z.boolean().optional() }))
    .optional(),
  icons: Icons,
  _meta: Meta,
});

export const ListPromptsResultSchema = z.looseObject({ prompts: z.array(PromptSchema), ...Page });

export const PromptMessageSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: ContentBlockSchema,
});

export const GetPromptResultSchema = z.looseObject({
  description: z.string().optional(),
  messages: z.array(PromptMessageSchema),
  _meta: Meta,
});

export const CompleteResultSchema = z.looseObject({
  completion: z.looseObject({
    values: z.array(z.string()),
    total: z.number().optional(),
    hasMore: z.boolean().optional(),
  }),
  _meta: Meta,
});

export const EmptyResultSchema = z.looseObject({ _meta: Meta });

/** `logging/setLevel` levels, RFC 5424 severities. */
export const LoggingLevelSchema = z.enum(["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]);

export const LoggingMessageParamsSchema = z.looseObject({
  level: LoggingLevelSchema,
  logger: z.string().optional(),
  data: z.unknown(),
});

export const ResourceUpdatedParamsSchema = z.looseObject({ uri: z.string() });

// --- Server-to-client requests: what the server asks, and what the client's handlers answer.

/** The model asks for a tool to be run (in an assistant message). */
export const ToolUseContentSchema = z.looseObject({
  type: z.literal("tool_use"),
  /** Matches the `toolUseId` of the result that answers it. */
  id: z.string(),
  name: z.string(),
  input: z.record(z.string(), z.unknown()),
  _meta: Meta,
});

/** The result of a tool use (in a user message that holds tool results only). */
export const ToolResultContentSchema = z.looseObject({
  type: z.literal("tool_result"),
  toolUseId: z.string(),
  content: z.array(ContentBlockSchema),
  /** An object in 2025-11-25, any JSON value in 2026-07-28. */
  structuredContent: z.unknown().optional(),
  isError: z.boolean().optional(),
  _meta: Meta,
});

export const SamplingContentSchema = z.discriminatedUnion("type", [
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
]);

const SamplingContent = z.union([SamplingContentSchema, z.array(SamplingContentSchema)]);

export const SamplingMessageSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: SamplingContent,
  _meta: Meta,
});

/** How the model may use the tools: `auto` (the default), `required` (at least one), `none`. */
export const ToolChoiceSchema = z.looseObject({
  mode: z.enum(["auto", "required", "none"]).optional(),
});

/** The server's wishes for the model; the client may ignore them. Priorities run from 0 to 1. */
export const ModelPreferencesSchema = z.looseObject({
  hints: z.array(z.looseObject({ name: z.string().optional() })).optional(),
  costPriority: z.number().min(0).max(1).optional(),
  speedPriority: z.number().min(0).max(1).optional(),
  intelligencePriority: z.number().min(0).max(1).optional(),
});

export const CreateMessageParamsSchema = z.looseObject({
  messages: z.array(SamplingMessageSchema),
  maxTokens: z.number(),
  systemPrompt: z.string().optional(),
  includeContext: z.enum(["none", "thisServer", "allServers"]).optional(),
  temperature: z.number().optional(),
  stopSequences: z.array(z.string()).optional(),
  modelPreferences: ModelPreferencesSchema.optional(),
  metadata: z.looseObject({}).optional(),
  /**
   * Tools the model may use during this request only (client/sampling, "Tools in Sampling"); they
   * need not be tools the server lists. Only for a client that declares `sampling.tools`.
   */
  tools: z.array(ToolSchema).optional(),
  /** Only for a client that declares `sampling.tools`. @default { mode: "auto" } */
  toolChoice: ToolChoiceSchema.optional(),
  _meta: Meta,
});

export const CreateMessageResultSchema = z.looseObject({
  role: z.enum(["user", "assistant"]),
  content: SamplingContent,
  model: z.string(),
  /** `endTurn`, `stopSequence`, `maxTokens`, `toolUse` (the content asks for tools), or a provider's own. */
  stopReason: z.string().optional(),
  _meta: Meta,
});

const PrimitiveSchemaDefinition = z.looseObject({
  type: z.enum(["string", "number", "integer", "boolean", "array"]).optional(),
  default: z.unknown().optional(),
});

export const ElicitFormParamsSchema = z.looseObject({
  mode: z.literal("form").optional(),
  message: z.string(),
  requestedSchema: z.looseObject({
    type: z.literal("object"),
    properties: z.record(z.string(), PrimitiveSchemaDefinition),
    required: z.array(z.string()).optional(),
  }),
});

export const ElicitUrlParamsSchema = z.looseObject({
  mode: z.literal("url"),
  message: z.string(),
  url: z.string(),
  /** 2025-11-25: names the elicitation in `notifications/elicitation/complete`. Absent in 2026-07-28. */
  elicitationId: z.string().optional(),
});

export const ElicitParamsSchema = z.union([ElicitUrlParamsSchema, ElicitFormParamsSchema]);

export const ElicitResultSchema = z.looseObject({
  action: z.enum(["accept", "decline", "cancel"]),
  content: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.array(z.string())])).optional(),
});

/** The `data` of a -32042 error (URL elicitation required, 2025-11-25): the elicitations to complete first. */
export const UrlElicitationRequiredDataSchema = z.looseObject({
  elicitations: z
    .array(ElicitUrlParamsSchema.extend({ elicitationId: z.string() }))
    .min(1),
});

/** `notifications/elicitation/complete` (2025-11-25): the out-of-band part of a URL elicitation is done. */
export const ElicitationCompleteParamsSchema = z.looseObject({ elicitationId: z.string() });

export const RootSchema = z.looseObject({ uri: z.string(), name: z.string().optional() });

export type Icon = z.infer<typeof IconSchema>;
export type Implementation = z.infer<typeof ImplementationSchema>;
export type ServerCapabilities = z.infer<typeof ServerCapabilitiesSchema>;
export type InitializeResult = z.infer<typeof InitializeResultSchema>;
export type ContentBlock = z.infer<typeof ContentBlockSchema>;
export type Tool = z.infer<typeof ToolSchema>;
export type ToolAnnotations = z.infer<typeof ToolAnnotationsSchema>;
export type ToolExecution = z.infer<typeof ToolExecutionSchema>;
export type ListToolsResult = z.infer<typeof ListToolsResultSchema>;
export type CallToolResult = z.infer<typeof CallToolResultSchema>;
export type Resource = z.infer<typeof ResourceSchema>;
export type ListResourcesResult = z.infer<typeof ListResourcesResultSchema>;
export type ResourceTemplate = z.infer<typeof ResourceTemplateSchema>;
export type ListResourceTemplatesResult = z.infer<typeof ListResourceTemplatesResultSchema>;
export type ResourceContents = z.infer<typeof ResourceContentsSchema>;
export type ReadResourceResult = z.infer<typeof ReadResourceResultSchema>;
export type Prompt = z.infer<typeof PromptSchema>;
export type ListPromptsResult = z.infer<typeof ListPromptsResultSchema>;
export type GetPromptResult = z.infer<typeof GetPromptResultSchema>;
export type CompleteResult = z.infer<typeof CompleteResultSchema>;
export type LoggingLevel = z.infer<typeof LoggingLevelSchema>;
export type LoggingMessageParams = z.infer<typeof LoggingMessageParamsSchema>;
export type CreateMessageParams = z.infer<typeof CreateMessageParamsSchema>;
export type CreateMessageResult = z.infer<typeof CreateMessageResultSchema>;
export type SamplingMessage = z.infer<typeof SamplingMessageSchema>;
export type SamplingContent = z.infer<typeof SamplingContentSchema>;
export type ToolUseContent = z.infer<typeof ToolUseContentSchema>;
export type ToolResultContent = z.infer<typeof ToolResultContentSchema>;
export type ToolChoice = z.infer<typeof ToolChoiceSchema>;
export type ModelPreferences = z.infer<typeof ModelPreferencesSchema>;
export type ElicitParams = z.infer<typeof ElicitParamsSchema>;
export type ElicitUrlParams = z.infer<typeof ElicitUrlParamsSchema>;
export type UrlElicitationRequiredData = z.infer<typeof UrlElicitationRequiredDataSchema>;
export type ElicitationCompleteParams = z.infer<typeof ElicitationCompleteParamsSchema>;
export type ElicitFormParams = z.infer<typeof ElicitFormParamsSchema>;
export type ElicitResult = z.infer<typeof ElicitResultSchema>;
export type Root = z.infer<typeof RootSchema>;
