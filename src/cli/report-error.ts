// Turns whatever ended a command into a message on stderr and an exit code (exit-codes.ts).
import { ConfigError } from '../config.ts';
import { ServiceError } from '../domain/errors.ts';
import { EXIT } from './exit-codes.ts';
import type { CliIo } from './io.ts';
import { UsageError } from './usage-error.ts';

export function reportError(err: unknown, io: CliIo): number {
  if (err instanceof UsageError) {
    io.err(err.usage === undefined ? err.message : `${err.message}\n\n${err.usage}`);
    return EXIT.usage;
  }
  if (err instanceof ConfigError) {
    io.err(`Configuration error: ${err.message}`);
    return EXIT.configuration;
  }
  if (err instanceof ServiceError) {
    io.err(`${err.code}: ${err.message}${err.details.length ? ` ${JSON.stringify(err.details)}` : ''}`);
    return err.code === 'not_found' ? EXIT.notFound : EXIT.failure;
  }
  io.err(err instanceof Error ? (err.stack ?? err.message) : String(err));
  return EXIT.failure;
}
