// `cds demo`: a demo organization with its data, credentials and console administrator
// (src/demo/create-demo-organization.ts), as the server loads into an empty embedded database.
import { createDemoOrganization } from '../../demo/create-demo-organization.ts';
import { formatDemoCredentials } from '../../demo/format-demo-credentials.ts';
import { JSON_OPTION, type Command } from '../command.ts';

export const demoCommand: Command = {
  group: 'demo',
  summary: 'load a demo organization',
  options: {
    scale: { type: 'number', value: 'N', help: 'its size: 1 (the default) is 150 controls; larger scales are for benchmarks' },
    seed: { type: 'number', value: 'S', help: 'the seed of its content (default 1): the same seed gives the same data' },
    name: { type: 'string', value: 'NAME', help: 'its name (default "Demo Organization")' },
    'as-of': {
      type: 'instant',
      value: 'DATE',
      help: 'the instant its dates are relative to, as an ISO 8601 date or date-time (default: now); a seed and an instant give the same data',
    },
    json: JSON_OPTION,
  },
  async run({ system, config }, { values }, io) {
    const demo = await createDemoOrganization(system, {
      scale: (values.scale as number | undefined) ?? 1,
      seed: (values.seed as number | undefined) ?? 1,
      name: values.name as string | undefined,
      progress: !values.json,
      asOf: values['as-of'] as number | undefined,
    });
    if (values.json) io.out(JSON.stringify(demo));
    else io.out(formatDemoCredentials(demo, `http://${config.host}:${config.port}`).replace(/\n$/, ''));
  },
};
