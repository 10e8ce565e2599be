/**
 * `jose` (JOSE: JWS signing, PEM and JWK keys, thumbprints), loaded the first time a flow needs
 * it (a DPoP proof, a signed client assertion), so that `import "mcpwire"` and the flows that
 * sign nothing never load it.
 */
import type * as JoseModule from "jose";

type Jose = typeof JoseModule;

let loading: Promise<Jose> | undefined;

export function loadJose(): Promise<Jose> {
  loading ??= import("jose");
  return loading;
}
