/** A URL-mode elicitation handler that accepts every elicitation and keeps what each was handed. */
import type { UrlElicitationRequest } from "../../src/index.js";

export function acceptingUrlHandler(): {
  seen: UrlElicitationRequest[];
  handlers: { elicitation: { url: (request: UrlElicitationRequest) => { action: "accept" } } };
} {
  const seen: UrlElicitationRequest[] = [];
  return {
    seen,
    handlers: {
      elicitation: {
        url: (request) => {
          seen.push(request);
          return { action: "accept" };
        },
      },
    },
  };
}
