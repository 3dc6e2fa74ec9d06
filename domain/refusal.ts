import { isErrorCode, kindOf, type ErrorCode, type KindOf } from './error-catalogue';

/**
 * A business rule's no, as a value: what the domain's checks return, what an Update's activity answers its
 * workflow (activities/refusal-outcome.ts) and what crosses Temporal as a failure and back. Its code is the
 * catalogue's, and so is its kind; `field` names the input at fault, when one is.
 */
export interface Refusal<C extends ErrorCode = ErrorCode> {
  kind: KindOf<C>;
  code: C;
  message: string;
  field?: string;
}

/** A refusal of a catalogue code, of the code's kind. */
export const refusal = <C extends ErrorCode>(code: C, message: string): Refusal<C> => ({
  kind: kindOf(code),
  code,
  message,
});

/**
 * The one codec of a refusal across the Temporal boundary: the fields of the non-retryable ApplicationFailure
 * that carries it (type: the code; first detail: the kind, as recorded histories have it), and back. Pure, so
 * workflows, activities and the API share it; each side builds or reads its own SDK's ApplicationFailure.
 */
export const failureOfRefusal = ({ code, message, kind }: Refusal) => ({
  type: code,
  message,
  nonRetryable: true,
  details: [kind],
});

/** The refusal a failure carries; undefined when its type is no catalogue code (then it is no refusal but a fault). */
export function refusalOfFailure(failure: { type?: string | null; message: string }): Refusal | undefined {
  return isErrorCode(failure.type) ? refusal(failure.type, failure.message) : undefined;
}
