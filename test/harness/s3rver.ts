// s3rver (an S3-protocol server from the npm registry) in a child process on 127.0.0.1 with a
// random port, for tests of the S3 blob store and of uploads to it: a real S3 wire protocol, no
// mock of the SDK. In its own process so memory measured in the test process is the client's alone.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import path from 'node:path';

const S3RVER = `
import { createRequire } from 'node:module';
const S3rver = createRequire(process.cwd() + '/')('s3rver');
const [directory, bucket] = process.argv.slice(-2);
const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
const { port } = await server.run();
process.stdout.write(port + '\\n');
process.on('SIGTERM', () => server.close().then(() => process.exit(0)));
`;

/** Starts s3rver storing under `directory` with `bucket` created; resolves once it listens. */
export async function startS3rver(directory: string, bucket: string): Promise<{ port: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, ['--input-type=module', '-e', S3RVER, directory, bucket], {
    cwd: path.resolve(import.meta.dirname, '../..'),
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = once(child, 'exit');
  const [line] = (await Promise.race([
    once(child.stdout!, 'data'),
    exited.then(() => Promise.reject(new Error('s3rver exited before listening'))),
  ])) as [Buffer];
  return {
    port: Number(line.toString().trim()),
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}
