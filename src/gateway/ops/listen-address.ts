/** A `host:port` to listen on, as `--listen` and `--admin-listen` take it. */
import { isIP } from "node:net";

export interface ListenAddress {
  /** A host name or an IP address, without brackets. */
  readonly host: string;
  /** 0 asks the system for a free port. */
  readonly port: number;
}

/** `127.0.0.1:9090`, `[::1]:9090`, `localhost:9090`; a TypeError naming `name` otherwise. */
export function parseListenAddress(text: string, name: string): ListenAddress {
  const match = /^(?:\[([0-9a-fA-F:.]+)\]|([^\s:[\]/]+)):(\d{1,5})$/.exec(text);
  const host = match?.[1] ?? match?.[2];
  const port = Number(match?.[3]);
  if (match === null || host === undefined || port > 65_535 || (match[1] !== undefined && isIP(host) !== 6)) {
    throw new TypeError(`${name} ${JSON.stringify(text)} is not host:port; give one such as 127.0.0.1:9090 or [::1]:9090`);
  }
  return { host, port };
}
