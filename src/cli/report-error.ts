// Turns whatever ended a command into a message on stderr and an exit code (exit-codes.ts).
import { ConfigError } from '../config.ts';
import { ServiceError } from '../shared/errors.ts';
import { BackupError } from '../storage/backup/backup-error.ts';
import { NewerDatabaseError } from '../storage/db/migrate.ts';
import { DocumentRefused } from './document-refused.ts';
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
  // refusals that say what to do in their own words: no stack
  if (err instanceof NewerDatabaseError || err instanceof BackupError || err instanceof DocumentRefused) {
    io.err(err.message);
    return EXIT.failure;
  }
  if (err instanceof ServiceError) {
    // one line per detail, the field first: "  password must be at least 12 characters"
    const details = err.details.map((d) =>
      typeof d === 'object' && d && 'field' in d ? `  ${d.field} ${d.message}` : `  ${JSON.stringify(d)}`,
    );
    io.err([`${err.code}: ${err.message}`, ...details].join('\n'));
    return err.code === 'not_found' ? EXIT.notFound : EXIT.failure;
  }
  io.err(err instanceof Error ? (err.stack ?? err.message) : String(err));
  return EXIT.failure;
}
