/**
 * Which scope a client asks for (basic/authorization, "Scope Selection Strategy" and "Step-Up
 * Authorization Flow"): the challenge's `scope` first, else the resource metadata's
 * `scopes_supported`, else the configured scope, else none (the parameter is left out). On a
 * 403 `insufficient_scope`, the union of what was asked before and what is challenged, so that
 * a step-up never loses a permission an earlier operation needed.
 */

/** A scope string as its space-separated scopes, without repeats, in order. */
export function scopesOf(scope: string | undefined): string[] {
  if (scope === undefined) return [];
  return [...new Set(scope.split(/[ \t]+/).filter((item) => item !== ""))];
}

export function joinScopes(scopes: readonly string[]): string | undefined {
  return scopes.length === 0 ? undefined : scopes.join(" ");
}

export interface ScopeSources {
  /** The `scope` of the challenge that started the flow. */
  challenged?: string;
  /** The protected resource metadata's `scopes_supported`. */
  resourceScopes?: readonly string[];
  /** The scope the user configured. */
  configured?: string;
}

/** The scope of a first authorization, by the specification's priority. */
export function initialScope(sources: ScopeSources): string[] {
  const challenged = scopesOf(sources.challenged);
  if (challenged.length > 0) return challenged;
  if (sources.resourceScopes !== undefined && sources.resourceScopes.length > 0) return [...new Set(sources.resourceScopes)];
  return scopesOf(sources.configured);
}

/** The scope of a step-up: what was asked before, then what the challenge adds. */
export function stepUpScope(previous: readonly string[], challenged: string | undefined): string[] {
  return [...new Set([...previous, ...scopesOf(challenged)])];
}

/**
 * `offline_access` asks for a refresh token; it is added when the authorization server lists it
 * in `scopes_supported` (and only then: SEP-2207), and removed when it does not.
 */
export function withOfflineAccess(scopes: readonly string[], authorizationServerScopes: readonly string[] | undefined): string[] {
  const supported = authorizationServerScopes?.includes("offline_access") === true;
  const others = scopes.filter((scope) => scope !== "offline_access");
  return supported ? [...others, "offline_access"] : others;
}
