// Blobs as objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2, …). A put streams through
// lib-storage's Upload: small files go up in one PutObject once the stream has ended, larger ones
// as a multipart upload, part by part; on failure or oversize the multipart upload is aborted, so
// no object and no stored parts remain (S3 publishes an object only when the upload completes).
import type { S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { S3Settings } from '../../config.ts';
import { DependencyUnavailableError } from '../../shared/errors.ts';
import {
  assertBlobKey,
  assertBlobPrefix,
  assertMaxBytes,
  BlobNotFoundError,
  BlobTooLargeError,
  Meter,
  watchSource,
  type BlobStore,
  type PutOptions,
  type PutResult,
} from './store.ts';

/**
 * The AWS SDK, loaded by the first S3 store made: it is an eighth of the service's heap, and every
 * full garbage collection marks the whole heap (an upload of 100 MB triggers several), so
 * deployments that keep their files on local disk do not carry it.
 */
const loadSdk = async () => {
  const [s3, storage] = await Promise.all([import('@aws-sdk/client-s3'), import('@aws-sdk/lib-storage')]);
  return { s3, Upload: storage.Upload };
};
type Sdk = Awaited<ReturnType<typeof loadSdk>>;

export interface S3BlobStoreOptions {
  /** bytes per multipart part (at least 5 MiB, S3's minimum) */
  partSize?: number;
  /** parts uploaded at once; memory per put is about partSize × (queueSize + 1) */
  queueSize?: number;
}

export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  readonly bucket: string;
  private readonly sdk: Promise<Sdk & { client: S3Client }>;
  private readonly partSize: number;
  private readonly queueSize: number;

  constructor(settings: S3Settings, options: S3BlobStoreOptions = {}) {
    this.bucket = settings.bucket;
    this.partSize = Math.max(options.partSize ?? 5 * 1024 * 1024, 5 * 1024 * 1024);
    this.queueSize = options.queueSize ?? 2;
    this.sdk = loadSdk().then(({ s3, Upload }) => ({
      s3,
      Upload,
      client: new s3.S3Client({
        region: settings.region,
        endpoint: settings.endpoint,
        forcePathStyle: settings.forcePathStyle,
        credentials:
          settings.accessKeyId && settings.secretAccessKey
            ? { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey }
            : undefined, // the SDK's default chain (environment, instance role, …)
        // Checksums only where the API requires them: many S3-compatible servers reject the
        // newer default (aws-chunked bodies with trailing CRC32 checksums).
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
        maxAttempts: 3,
        // Fail fast while the store is unreachable (503) instead of hanging the request.
        requestHandler: { connectionTimeout: 2000, requestTimeout: 30_000 },
      }),
    }));
    this.sdk.catch(() => {}); // reported by the first operation that needs it
  }

  async put(key: string, source: Readable, options: PutOptions): Promise<PutResult> {
    try {
      assertBlobKey(key);
      assertMaxBytes(options.maxBytes);
    } catch (err) {
      source.destroy();
      throw err;
    }
    const watched = watchSource(source);
    let sdk: Sdk & { client: S3Client };
    try {
      sdk = await this.sdk;
    } catch (err) {
      source.destroy();
      throw unavailable(err);
    }
    const meter = new Meter(options.maxBytes);
    const upload = new sdk.Upload({
      client: sdk.client,
      params: { Bucket: this.bucket, Key: key, Body: meter },
      partSize: this.partSize,
      queueSize: this.queueSize,
      leavePartsOnError: false,
    });
    // The pipeline feeds the meter; Upload reads it. If the source errors or grows too large, the
    // meter errors, Upload's read fails and it aborts the multipart upload before rejecting. If
    // Upload fails first, destroying the meter stops the pipeline (and the source).
    const piping = pipeline(source, meter);
    const uploading = upload.done();
    const [piped, uploaded] = await Promise.allSettled([
      piping,
      uploading.catch((err) => {
        meter.destroy(err instanceof Error ? err : new Error(String(err)));
        throw err;
      }),
    ]);
    if (piped.status === 'fulfilled' && uploaded.status === 'fulfilled') {
      return { key, size: meter.bytesSeen, sha256: meter.digest() };
    }
    const pipeErr = piped.status === 'rejected' ? piped.reason : undefined;
    const uploadErr = uploaded.status === 'rejected' ? uploaded.reason : undefined;
    // Belt and braces: a single-part upload that completed while the pipeline failed is removed.
    if (uploaded.status === 'fulfilled') await this.delete(key).catch(() => {});
    for (const err of [pipeErr, uploadErr]) if (err instanceof BlobTooLargeError) throw err;
    const sourceErr = watched.error();
    if (sourceErr !== undefined && (pipeErr === sourceErr || uploadErr === sourceErr)) throw sourceErr;
    throw unavailable(uploadErr ?? pipeErr);
  }

  get(key: string): Readable {
    assertBlobKey(key);
    const { sdk, bucket } = this;
    async function* read(): AsyncGenerator<Uint8Array> {
      let body: Readable;
      try {
        const { s3, client } = await sdk;
        body = (await client.send(new s3.GetObjectCommand({ Bucket: bucket, Key: key }))).Body as Readable;
      } catch (err) {
        throw status(err) === 404 ? new BlobNotFoundError(key) : unavailable(err);
      }
      try {
        yield* body; // in Node the SDK answers the object's bytes as the HTTP response stream
      } catch (err) {
        throw unavailable(err);
      }
    }
    return Readable.from(read(), { objectMode: false });
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    try {
      const { s3, client } = await this.sdk;
      await client.send(new s3.DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
    } catch (err) {
      if (status(err) === 404) return;
      throw unavailable(err);
    }
  }

  async *list(prefix: string): AsyncIterable<string> {
    assertBlobPrefix(prefix);
    let token: string | undefined;
    do {
      let page;
      try {
        const { s3, client } = await this.sdk;
        page = await client.send(new s3.ListObjectsV2Command({ Bucket: this.bucket, Prefix: prefix, ContinuationToken: token }));
      } catch (err) {
        throw unavailable(err);
      }
      for (const object of page.Contents ?? []) if (object.Key !== undefined) yield object.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async ping(): Promise<void> {
    try {
      const { s3, client } = await this.sdk;
      await client.send(new s3.HeadBucketCommand({ Bucket: this.bucket }));
    } catch (err) {
      throw unavailable(err);
    }
  }

  async close(): Promise<void> {
    (await this.sdk.catch(() => undefined))?.client.destroy();
  }
}

function status(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } })?.$metadata?.httpStatusCode;
}

function unavailable(err: unknown): DependencyUnavailableError {
  let issue = 'connection unavailable';
  // What S3 answered (an S3ServiceException carries where the fault lies), not a connection failure.
  const fault = (err as { $fault?: unknown })?.$fault;
  if (fault === 'client' || fault === 'server') {
    const code = status(err);
    issue =
      code === 403 || code === 401
        ? 'access denied'
        : code === 404 // delete handles 404 itself; here it is the bucket
          ? 'bucket not found'
          : code !== undefined && code >= 500
            ? 'server error'
            : 'request failed';
  }
  return new DependencyUnavailableError('blob_store', issue, { cause: err });
}
