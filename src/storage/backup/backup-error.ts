// A backup or restore refused or failed for a reason the operator can act on; `cds` prints the
// message alone (no stack) and exits 1.
export class BackupError extends Error {}
