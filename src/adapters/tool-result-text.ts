/**
 * What a model reads of a tool's result, for the agent frameworks that want text.
 *
 * Text blocks are kept as they are; media and resources, which a text channel cannot carry, are
 * named with their type and size so the model knows they exist; a result that has only
 * `structuredContent` is given as its JSON. Frameworks that carry media (the AI SDK's content
 * parts, LangChain's image blocks) take them from `mediaBlocks`.
 */
import type { CallToolResult, ContentBlock } from "../protocol/schemas.js";

/** An image or audio block of a result, with its base64 data. */
export interface MediaBlock {
  type: "image" | "audio";
  /** Base64, as the server sent it. */
  data: string;
  mimeType: string;
}

/** The text of a whole result: its blocks one after the other, or its structured content as JSON. */
export function resultText(result: Pick<CallToolResult, "content" | "structuredContent">): string {
  const parts = result.content.map(blockText);
  if (parts.length === 0) {
    return result.structuredContent === undefined ? "" : JSON.stringify(result.structuredContent);
  }
  return parts.join("\n");
}

/** The image and audio blocks of a result. */
export function mediaBlocks(result: Pick<CallToolResult, "content">): MediaBlock[] {
  return result.content.flatMap((block): MediaBlock[] =>
    block.type === "image" || block.type === "audio" ? [{ type: block.type, data: block.data, mimeType: block.mimeType }] : [],
  );
}

/** One block as text; what is not text is named, not dropped. */
export function blockText(block: ContentBlock): string {
  switch (block.type) {
    case "text":
      return block.text;
    case "image":
    case "audio":
      return `[${block.type}: ${block.mimeType}, ${base64Bytes(block.data)} bytes]`;
    case "resource_link":
      return `[resource link: ${block.uri}${block.name ? ` (${block.name})` : ""}]`;
    case "resource": {
      const resource = block.resource;
      if ("text" in resource && typeof resource.text === "string") return resource.text;
      const mime = resource.mimeType ? `${resource.mimeType}, ` : "";
      const size = "blob" in resource && typeof resource.blob === "string" ? `${base64Bytes(resource.blob)} bytes` : "no data";
      return `[resource: ${resource.uri} (${mime}${size})]`;
    }
    default:
      return `[${(block as { type: string }).type}]`;
  }
}

/** The size of the data a base64 text holds, without decoding it. */
function base64Bytes(text: string): number {
  const padding = text.endsWith("==") ? 2 : text.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((text.length * 3) / 4) - padding);
}
