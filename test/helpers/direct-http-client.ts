/**
 * The default HTTP client as a transport builds it for a server without proxy or TLS options:
 * undici through `netDispatcher`, direct, no proxy whatever the environment says.
 */
import { UndiciHttpClient, CONNECT_TIMEOUT_MS } from "../../src/transport/http/undici-http-client.js";
import { netDispatcher } from "../../src/transport/net/dispatcher.js";
import { proxyRules } from "../../src/transport/net/proxy-rules.js";

export function directHttpClient(connectTimeoutMs = CONNECT_TIMEOUT_MS): UndiciHttpClient {
  return new UndiciHttpClient(netDispatcher({ proxy: proxyRules(false, "the test client"), tls: undefined, connectTimeoutMs }));
}
