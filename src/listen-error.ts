// One line a person can act on when a port cannot be listened on, instead of a stack trace.
/** The message for a failed listen on `host:port` (set through `variable`), or undefined for other errors. */
export function listenErrorMessage(
  err: unknown,
  where: { host: string; port: number; variable: string; hostVariable: string },
): string | undefined {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const { host, port, variable, hostVariable } = where;
  if (code === 'EADDRINUSE')
    return `port ${port} on ${host} is in use (is the server already running?); set ${variable}=<another port> to use another, e.g. ${variable}=${port + 1}`;
  if (code === 'EACCES')
    return `not permitted to listen on port ${port} on ${host} (ports below 1024 need privileges); set ${variable}=<port> to a port above 1023`;
  if (code === 'EADDRNOTAVAIL')
    return `${host} is not an address of this machine; set ${hostVariable} to one of its addresses (127.0.0.1, or 0.0.0.0 for all)`;
  return undefined;
}
