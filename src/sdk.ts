/**
 * `mcpwire/sdk`: any mcpwire transport as the official TypeScript SDK's `Transport`.
 * Needs no SDK itself; give the result to the SDK's `Client.connect()`.
 */
export {
  SdkTransport,
  SDK_REQUEST_FAILED_CODE,
  SDK_REQUEST_TIMEOUT_CODE,
  FAILED_IDS_KEPT,
  type SdkTransportLike,
  type SdkTransportOptions,
} from "./adapters/sdk-transport.js";
