/**
 * Why an upload's k6 output (or its metadata, against the output) was refused: `field` names what
 * was wrong (`line 12`, `(body)`, `durationSec`, a group), `reason` says how, and the message is a
 * sentence for a person. The web app answered these as 422s; the worker records them on the run.
 */
export class IngestError extends Error {
  constructor(
    message: string,
    readonly field: string,
    readonly reason: string,
  ) {
    super(message);
    this.name = "IngestError";
  }

  /** One line for a run's `error`: the sentence, then the field and reason it names. */
  get runError(): string {
    return `${this.message} (${this.field}: ${this.reason})`;
  }
}

export const invalidLine = (line: number, reason: string, detail: string) =>
  new IngestError(`Line ${line} of the k6 output ${detail}.`, `line ${line}`, reason);

export const invalidBody = (reason: string, detail: string) => new IngestError(detail, "(body)", reason);
