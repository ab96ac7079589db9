// PUT /v1/program (plan and apply), GET /v1/program (export), GET /v1/program/schema: the
// organization's program as one document (an extension of the service; docs/program-documents.md).
// A document is an object (sent as JSON) or YAML text (sent as application/yaml, unchanged, so the
// service's errors name its lines and columns).
import type { ApplyProgramBody, ApplyProgramResponse, ExportProgramResponse } from '../generated/api.ts';
import type { RequestBody } from '../transport/request-sender.ts';
import { jsonBody, send, type ClientContext, type RequestOptions, type WithResponse, type WriteOptions } from './operation.ts';

export type ProgramDocument = ApplyProgramBody;
export type ProgramPlan = ApplyProgramResponse['data'];

export interface ProgramOptions {
  /** also delete the records of the kinds the document covers that it does not list */
  prune?: boolean;
  /** `oscal-catalog`: the document is an OSCAL 1.x catalog (an object or JSON text), read as one framework */
  source?: 'document' | 'oscal-catalog';
  /** with `source: 'oscal-catalog'`: the framework's key */
  frameworkKey?: string;
}

/** YAML (or JSON) text as it is: retries send the same bytes. */
function textBody(text: string, contentType: string): RequestBody {
  return {
    contentType,
    open: () => ({ body: text, streaming: false }),
    replayable: () => true,
    sourceError: () => undefined,
  };
}

function bodyOf(document: ProgramDocument | string | object, source: ProgramOptions['source']): RequestBody {
  if (typeof document !== 'string') return jsonBody(document);
  // Text: JSON when it is a JSON object (and always for a catalog), YAML otherwise.
  return textBody(document, source === 'oscal-catalog' || /^\s*\{/.test(document) ? 'application/json' : 'application/yaml');
}

export class Program {
  readonly #ctx: ClientContext;
  constructor(ctx: ClientContext) {
    this.#ctx = ctx;
  }

  /** What applying the document would change, writing nothing: `changed`, counts per kind, each change, the computed effects. */
  plan(
    document: ProgramDocument | string | object,
    options: ProgramOptions & RequestOptions = {},
  ): Promise<WithResponse<ApplyProgramResponse>> {
    return this.#put('plan', document, options);
  }

  /** Applies the document, all or nothing; answers the plan it carried out. Safe to retry (one Idempotency-Key per call). */
  apply(
    document: ProgramDocument | string | object,
    options: ProgramOptions & WriteOptions = {},
  ): Promise<WithResponse<ApplyProgramResponse>> {
    return this.#put('apply', document, options);
  }

  #put(mode: 'plan' | 'apply', document: ProgramDocument | string | object, options: ProgramOptions & WriteOptions) {
    const { prune, source, frameworkKey, ...rest } = options;
    return send(this.#ctx, 'applyProgram', {
      query: { mode, prune: prune || undefined, source, frameworkKey },
      body: bodyOf(document, source),
      options: rest,
    });
  }

  /** The program as a document: an object (JSON), or with `format: 'yaml'` the YAML text, ready to edit and apply. */
  export(options?: { format?: 'json' } & RequestOptions): Promise<WithResponse<ExportProgramResponse>>;
  export(options: { format: 'yaml' } & RequestOptions): Promise<string>;
  async export(options: { format?: 'json' | 'yaml' } & RequestOptions = {}): Promise<WithResponse<ExportProgramResponse> | string> {
    const { format, ...rest } = options;
    if (format !== 'yaml') return send(this.#ctx, 'exportProgram', { options: rest });
    const { body } = await this.#ctx.sender.send<string>({
      method: 'GET',
      path: '/v1/program',
      headers: { accept: 'application/yaml' },
      text: true,
      tokens: this.#ctx.tokens,
      signal: rest.signal,
      timeoutMs: rest.timeoutMs,
      maxRetries: rest.maxRetries,
    });
    return body;
  }

  /** The JSON Schema of program documents (needs no credential on the service; sent with the token all the same). */
  schema(options?: RequestOptions) {
    return send(this.#ctx, 'getProgramSchema', { options });
  }
}
