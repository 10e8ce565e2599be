/**
 * Result schemas of the MCP methods the client calls, and of the server-to-client requests it
 * answers (revisions 2024-11-05 to 2025-11-25).
 *
 * Required fields are checked; unknown fields are kept (objects are "loose"), because every
 * revision adds optional fields and `_meta` may carry anything. An answer that fails its schema
 * becomes a PROTOCOL failure, never a half-typed object.
 */
import { LOGGING_LEVELS } from "./methods.js";
import { loose, oneOf, v, type Infer } from "./valita.js";
import type { ModernCallToolResultSchema, ModernCreateMessageParamsSchema, ModernListToolsResultSchema, ModernToolSchema } from "./modern-schemas.js";

const Meta = v.record(v.unknown()).optional();

/** An icon a client may show beside a tool, prompt, resource or implementation (2025-11-25 on). */
export const IconSchema = loose({
  src: v.string(),
  mimeType: v.string().optional(),
  /** Each "WxH" (e.g. "48x48") or "any". */
  sizes: v.array(v.string()).optional(),
  theme: oneOf("light", "dark").optional(),
});

const Icons = v.array(IconSchema).optional();

export const ImplementationSchema = loose({
  name: v.string(),
  version: v.string(),
  title: v.string().optional(),
  icons: Icons,
});

export const ServerCapabilitiesSchema = loose({
  experimental: v.record(v.unknown()).optional(),
  logging: loose({}).optional(),
  completions: loose({}).optional(),
  prompts: loose({ listChanged: v.boolean().optional() }).optional(),
  resources: loose({ subscribe: v.boolean().optional(), listChanged: v.boolean().optional() }).optional(),
  tools: loose({ listChanged: v.boolean().optional() }).optional(),
});

export const InitializeResultSchema = loose({
  protocolVersion: v.string(),
  capabilities: ServerCapabilitiesSchema,
  serverInfo: ImplementationSchema,
  instructions: v.string().optional(),
  _meta: Meta,
});

export const AnnotationsSchema = loose({
  audience: v.array(oneOf("user", "assistant")).optional(),
  priority: v.number().optional(),
  lastModified: v.string().optional(),
});

export const TextResourceContentsSchema = loose({
  uri: v.string(),
  mimeType: v.string().optional(),
  text: v.string(),
  _meta: Meta,
});

export const BlobResourceContentsSchema = loose({
  uri: v.string(),
  mimeType: v.string().optional(),
  blob: v.string(),
  _meta: Meta,
});

export const ResourceContentsSchema = v.union(TextResourceContentsSchema, BlobResourceContentsSchema);

export const TextContentSchema = loose({
  type: v.literal("text"),
  text: v.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ImageContentSchema = loose({
  type: v.literal("image"),
  data: v.string(),
  mimeType: v.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const AudioContentSchema = loose({
  type: v.literal("audio"),
  data: v.string(),
  mimeType: v.string(),
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ResourceSchema = loose({
  uri: v.string(),
  name: v.string(),
  title: v.string().optional(),
  description: v.string().optional(),
  mimeType: v.string().optional(),
  size: v.number().optional(),
  annotations: AnnotationsSchema.optional(),
  icons: Icons,
  _meta: Meta,
});

/** A content block that points at a resource: a resource's fields, typed as a link. */
export const ResourceLinkSchema = ResourceSchema.extend({ type: v.literal("resource_link") });

export const EmbeddedResourceSchema = loose({
  type: v.literal("resource"),
  resource: ResourceContentsSchema,
  annotations: AnnotationsSchema.optional(),
  _meta: Meta,
});

export const ContentBlockSchema = v.union(
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ResourceLinkSchema,
  EmbeddedResourceSchema,
);

/** A JSON Schema for an object: every tool's `inputSchema`, and its `outputSchema` up to 2025-11-25. */
const JsonObjectSchema = loose({ type: v.literal("object") });

/**
 * Hints about a tool's behaviour. They come from the server and are not verified: a client must
 * not trust them from a server it does not trust.
 */
export const ToolAnnotationsSchema = loose({
  title: v.string().optional(),
  /** The tool does not modify its environment. @default false */
  readOnlyHint: v.boolean().optional(),
  /** The tool may update its environment destructively (meaningful when not read-only). @default true */
  destructiveHint: v.boolean().optional(),
  /** Calling it again with the same arguments has no further effect (meaningful when not read-only). @default false */
  idempotentHint: v.boolean().optional(),
  /** The tool may reach an open world of external entities. @default true */
  openWorldHint: v.boolean().optional(),
});

/** How a tool may be run (2025-11-25): whether it can, or must, be called as a task. */
export const ToolExecutionSchema = loose({
  /** @default "forbidden" */
  taskSupport: oneOf("forbidden", "optional", "required").optional(),
});

export const ToolSchema = loose({
  name: v.string(),
  /** The name to show; then `annotations.title`, then `name`. */
  title: v.string().optional(),
  description: v.string().optional(),
  inputSchema: JsonObjectSchema,
  /** Any JSON Schema in 2026-07-28 (modern-schemas.ts). */
  outputSchema: JsonObjectSchema.optional(),
  annotations: ToolAnnotationsSchema.optional(),
  icons: Icons,
  execution: ToolExecutionSchema.optional(),
  _meta: Meta,
});

const Page = { nextCursor: v.string().optional(), _meta: Meta };

export const ListToolsResultSchema = loose({ tools: v.array(ToolSchema), ...Page });

export const CallToolResultSchema = loose({
  // 2024-11-05 servers always send content; later revisions too, but an empty list is legal.
  content: v.array(ContentBlockSchema).optional(() => []),
  /** An object up to 2025-11-25; any JSON value in 2026-07-28 (modern-schemas.ts). */
  structuredContent: v.record(v.unknown()).optional(),
  isError: v.boolean().optional(),
  _meta: Meta,
});

export const ListResourcesResultSchema = loose({ resources: v.array(ResourceSchema), ...Page });

/** A resource template: a `uriTemplate`, then a resource's fields but its `uri` and `size`, in their order. */
export const ResourceTemplateSchema = loose({ uriTemplate: v.string(), ...ResourceSchema.omit("uri", "size").shape });

export const ListResourceTemplatesResultSchema = loose({
  resourceTemplates: v.array(ResourceTemplateSchema),
  ...Page,
});

export const ReadResourceResultSchema = loose({ contents: v.array(ResourceContentsSchema), _meta: Meta });

export const PromptSchema = loose({
  name: v.string(),
  title: v.string().optional(),
  description: v.string().optional(),
  arguments: v.array(loose({ name: v.string(), description: v.string().optional(), required: v.boolean().optional() })).optional(),
  icons: Icons,
  _meta: Meta,
});

export const ListPromptsResultSchema = loose({ prompts: v.array(PromptSchema), ...Page });

export const PromptMessageSchema = loose({
  role: oneOf("user", "assistant"),
  content: ContentBlockSchema,
});

export const GetPromptResultSchema = loose({
  description: v.string().optional(),
  messages: v.array(PromptMessageSchema),
  _meta: Meta,
});

export const CompleteResultSchema = loose({
  completion: loose({
    values: v.array(v.string()),
    total: v.number().optional(),
    hasMore: v.boolean().optional(),
  }),
  _meta: Meta,
});

export const EmptyResultSchema = loose({ _meta: Meta });

/** `logging/setLevel` levels, RFC 5424 severities. */
export const LoggingLevelSchema = oneOf(...LOGGING_LEVELS);

export const LoggingMessageParamsSchema = loose({
  level: LoggingLevelSchema,
  logger: v.string().optional(),
  data: v.unknown(),
});

export const ResourceUpdatedParamsSchema = loose({ uri: v.string() });

// --- Server-to-client requests: what the server asks, and what the client's handlers answer.

/** The model asks for a tool to be run (in an assistant message). */
export const ToolUseContentSchema = loose({
  type: v.literal("tool_use"),
  /** Matches the `toolUseId` of the result that answers it. */
  id: v.string(),
  name: v.string(),
  input: v.record(v.unknown()),
  _meta: Meta,
});

/** The result of a tool use (in a user message that holds tool results only). */
export const ToolResultContentSchema = loose({
  type: v.literal("tool_result"),
  toolUseId: v.string(),
  content: v.array(ContentBlockSchema),
  /** An object in 2025-11-25, any JSON value in 2026-07-28. */
  structuredContent: v.unknown().optional(),
  isError: v.boolean().optional(),
  _meta: Meta,
});

export const SamplingContentSchema = v.union(
  TextContentSchema,
  ImageContentSchema,
  AudioContentSchema,
  ToolUseContentSchema,
  ToolResultContentSchema,
);

const SamplingContent = v.union(SamplingContentSchema, v.array(SamplingContentSchema));

export const SamplingMessageSchema = loose({
  role: oneOf("user", "assistant"),
  content: SamplingContent,
  _meta: Meta,
});

/** How the model may use the tools: `auto` (the default), `required` (at least one), `none`. */
export const ToolChoiceSchema = loose({
  mode: oneOf("auto", "required", "none").optional(),
});

/** A priority of the model preferences, from 0 to 1. */
const Priority = v
  .number()
  .assert((priority) => priority >= 0 && priority <= 1, "a number from 0 to 1")
  .optional();

/** The server's wishes for the model; the client may ignore them. Priorities run from 0 to 1. */
export const ModelPreferencesSchema = loose({
  hints: v.array(loose({ name: v.string().optional() })).optional(),
  costPriority: Priority,
  speedPriority: Priority,
  intelligencePriority: Priority,
});

export const CreateMessageParamsSchema = loose({
  messages: v.array(SamplingMessageSchema),
  maxTokens: v.number(),
  systemPrompt: v.string().optional(),
  includeContext: oneOf("none", "thisServer", "allServers").optional(),
  temperature: v.number().optional(),
  stopSequences: v.array(v.string()).optional(),
  modelPreferences: ModelPreferencesSchema.optional(),
  metadata: loose({}).optional(),
  /**
   * Tools the model may use during this request only (client/sampling, "Tools in Sampling"); they
   * need not be tools the server lists. Only for a client that declares `sampling.tools`.
   */
  tools: v.array(ToolSchema).optional(),
  /** Only for a client that declares `sampling.tools`. @default { mode: "auto" } */
  toolChoice: ToolChoiceSchema.optional(),
  _meta: Meta,
});

export const CreateMessageResultSchema = loose({
  role: oneOf("user", "assistant"),
  content: SamplingContent,
  model: v.string(),
  /** `endTurn`, `stopSequence`, `maxTokens`, `toolUse` (the content asks for tools), or a provider's own. */
  stopReason: v.string().optional(),
  _meta: Meta,
});

const PrimitiveSchemaDefinition = loose({
  type: oneOf("string", "number", "integer", "boolean", "array").optional(),
  default: v.unknown().optional(),
});

export const ElicitFormParamsSchema = loose({
  mode: v.literal("form").optional(),
  message: v.string(),
  requestedSchema: loose({
    type: v.literal("object"),
    properties: v.record(PrimitiveSchemaDefinition),
    required: v.array(v.string()).optional(),
  }),
});

export const ElicitUrlParamsSchema = loose({
  mode: v.literal("url"),
  message: v.string(),
  url: v.string(),
  /** 2025-11-25: names the elicitation in `notifications/elicitation/complete`. Absent in 2026-07-28. */
  elicitationId: v.string().optional(),
});

export const ElicitParamsSchema = v.union(ElicitUrlParamsSchema, ElicitFormParamsSchema);

export const ElicitResultSchema = loose({
  action: oneOf("accept", "decline", "cancel"),
  content: v.record(v.union(v.string(), v.number(), v.boolean(), v.array(v.string()))).optional(),
});

/** The `data` of a -32042 error (URL elicitation required, 2025-11-25): the elicitations to complete first. */
export const UrlElicitationRequiredDataSchema = loose({
  elicitations: v
    .array(ElicitUrlParamsSchema.extend({ elicitationId: v.string() }))
    .assert((elicitations) => elicitations.length > 0, "at least one elicitation"),
});

/** `notifications/elicitation/complete` (2025-11-25): the out-of-band part of a URL elicitation is done. */
export const ElicitationCompleteParamsSchema = loose({ elicitationId: v.string() });

export const RootSchema = loose({ uri: v.string(), name: v.string().optional() });

/** What a roots handler answers with. */
export const RootListSchema = v.array(RootSchema);

export type Icon = Infer<typeof IconSchema>;
export type Implementation = Infer<typeof ImplementationSchema>;
export type ServerCapabilities = Infer<typeof ServerCapabilitiesSchema>;
export type InitializeResult = Infer<typeof InitializeResultSchema>;
export type ContentBlock = Infer<typeof ContentBlockSchema>;
// The tool shapes revision 2026-07-28 loosens (modern-schemas.ts) are typed as that revision has
// them, the wider: what a client of either era may get.
export type Tool = Infer<typeof ModernToolSchema>;
export type ToolAnnotations = Infer<typeof ToolAnnotationsSchema>;
export type ToolExecution = Infer<typeof ToolExecutionSchema>;
export type ListToolsResult = Infer<typeof ModernListToolsResultSchema>;
export type CallToolResult = Infer<typeof ModernCallToolResultSchema>;
export type Resource = Infer<typeof ResourceSchema>;
export type ListResourcesResult = Infer<typeof ListResourcesResultSchema>;
export type ResourceTemplate = Infer<typeof ResourceTemplateSchema>;
export type ListResourceTemplatesResult = Infer<typeof ListResourceTemplatesResultSchema>;
export type ResourceContents = Infer<typeof ResourceContentsSchema>;
export type ReadResourceResult = Infer<typeof ReadResourceResultSchema>;
export type Prompt = Infer<typeof PromptSchema>;
export type ListPromptsResult = Infer<typeof ListPromptsResultSchema>;
export type GetPromptResult = Infer<typeof GetPromptResultSchema>;
export type CompleteResult = Infer<typeof CompleteResultSchema>;
export type LoggingLevel = Infer<typeof LoggingLevelSchema>;
export type LoggingMessageParams = Infer<typeof LoggingMessageParamsSchema>;
export type CreateMessageParams = Infer<typeof ModernCreateMessageParamsSchema>;
export type CreateMessageResult = Infer<typeof CreateMessageResultSchema>;
export type SamplingMessage = Infer<typeof SamplingMessageSchema>;
export type SamplingContent = Infer<typeof SamplingContentSchema>;
export type ToolUseContent = Infer<typeof ToolUseContentSchema>;
export type ToolResultContent = Infer<typeof ToolResultContentSchema>;
export type ToolChoice = Infer<typeof ToolChoiceSchema>;
export type ModelPreferences = Infer<typeof ModelPreferencesSchema>;
export type ElicitParams = Infer<typeof ElicitParamsSchema>;
export type ElicitUrlParams = Infer<typeof ElicitUrlParamsSchema>;
export type UrlElicitationRequiredData = Infer<typeof UrlElicitationRequiredDataSchema>;
export type ElicitationCompleteParams = Infer<typeof ElicitationCompleteParamsSchema>;
export type ElicitFormParams = Infer<typeof ElicitFormParamsSchema>;
export type ElicitResult = Infer<typeof ElicitResultSchema>;
export type Root = Infer<typeof RootSchema>;
