// `cds version` (also `cds --version`): the release this installation runs and the Node.js under it,
// what an operator states in a bug report and checks after an upgrade. /healthz says the same version.
import { SERVICE_NAME, SERVICE_VERSION } from '../../shared/version.ts';
import { JSON_OPTION, type Command } from '../command.ts';

export const versionCommand: Command = {
  group: 'version',
  summary: 'print the version of the service and of Node.js',
  options: { json: JSON_OPTION },
  async runAlone({ values }, io) {
    if (values.json) io.out(JSON.stringify({ version: SERVICE_VERSION, node: process.versions.node }));
    else io.out(`${SERVICE_NAME} ${SERVICE_VERSION}\nnode ${process.versions.node}`);
  },
};
