/**
 * The URL of a URL-mode elicitation, checked before anyone is shown it (client/elicitation,
 * "Safe URL Handling"): https, or plain http on a loopback host (a development server); no user
 * name or password before the host (`https://bank.example@evil.example/` shows one host and opens
 * another). What the handler is given names the domain apart from the rest, and says when it is
 * written in Punycode, which may imitate another domain. Nothing here fetches the URL.
 */
import { isLoopbackHost } from "../util/loopback.js";

export interface CheckedElicitationUrl {
  /** The URL as parsed: show `href` in full, and open exactly it. */
  url: URL;
  /** Its host, as it is reached (Punycode kept): what the user should check before going on. */
  domain: string;
  /** A label of the domain is Punycode (`xn--`): it may imitate another domain. */
  punycode: boolean;
}

/** The URL checked, or why it is refused (in our words: the URL itself is the server's text). */
export function checkElicitationUrl(value: string): CheckedElicitationUrl | { refused: string } {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return { refused: "its url is not a URL" };
  }
  if (url.protocol !== "https:" && !(url.protocol === "http:" && isLoopbackHost(url.hostname))) {
    return { refused: "its url does not use https (plain http is allowed on a loopback host only)" };
  }
  if (url.username !== "" || url.password !== "") {
    return { refused: "its url carries a user name or password before the host, which hides where it leads" };
  }
  const domain = url.hostname;
  return { url, domain, punycode: domain.split(".").some((label) => label.toLowerCase().startsWith("xn--")) };
}
